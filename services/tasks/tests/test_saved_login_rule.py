"""G6: a saved login that doesn't get through is entered once and never
again in that task; nod checks the page, opens the private form, and the
model asking for the same login again is refused with nothing typed."""

import grpc

from nod.claims.v1 import claims_pb2 as claims
from nod.tasks.v1 import tasks_pb2 as pb
from nodtest.claims import CANARY_PASSWORD
from nodtest.demo import SHOP_TOTP_USERNAME, shop_count
from nodtest.rpc import expect_error

from .model_server import tool_call
from .stock_sign_in import StockSignIn
from .support import begin, ended, steps_of, type_into_form, wait_for, waiting

LOGIN_FIELDS = {"username": "#username", "password": "#password"}
SUBMIT = "#login button"


async def test_a_wrong_saved_password_is_typed_once_then_the_private_form(
    tasks_with, model_server, demo_person, shop_site
):
    wrong = await demo_person.vault.PutItem(
        claims.PutItemRequest(
            item=claims.VaultItem(
                kind=claims.ENTRY_KIND_SAVED_LOGIN,
                label="Old shop login",
                origin=shop_site.url,
                fields={"username": SHOP_TOTP_USERNAME, "password": "an-old-password"},
            )
        ),
        metadata=demo_person.meta,
    )
    saved_login = {"login_id": wrong.item.id, "fields": LOGIN_FIELDS, "submit": SUBMIT}
    model_server.script = [
        tool_call("navigate", {"url": f"{shop_site.url}/login"}),
        tool_call("enter_saved_login", saved_login),
    ]
    stub = await tasks_with(model_url=model_server.url)
    task = await begin(stub, demo_person, "Sign in to the shop")

    form = await wait_for(stub, demo_person.meta, task.id, waiting(pb.WAIT_KIND_PRIVATE_FORM))
    assert form.wait.form_kind == pb.FORM_KIND_LOGIN and "did not get through" in form.wait.prompt
    assert shop_count(shop_site, "login") == 1

    # The model asks for the same login again: as the same call, then with a reason.
    model_server.script = [
        tool_call("enter_saved_login", saved_login),
        tool_call("enter_saved_login", {**saved_login, "new_action_reason": "try once more"}),
        tool_call(
            "enter_from_private_form",
            {"form_id": form.wait.id, "fields": LOGIN_FIELDS, "submit": SUBMIT},
        ),
        tool_call("finish", {"message": "signed in"}),
    ]
    typed = await type_into_form(
        demo_person, form, {"username": SHOP_TOTP_USERNAME, "password": CANARY_PASSWORD}
    )
    await stub.SubmitPrivateForm(
        pb.SubmitPrivateFormRequest(task_id=task.id, form_id=form.wait.id, item_id=typed),
        metadata=demo_person.meta,
    )
    done = await wait_for(stub, demo_person.meta, task.id, ended)

    assert done.state == pb.TASK_STATE_DONE
    steps = await steps_of(stub, demo_person.meta, task.id)
    assert [(s.tool, s.state) for s in steps] == [
        ("navigate", pb.STEP_STATE_DONE),
        ("enter_saved_login", pb.STEP_STATE_DONE),
        ("enter_saved_login", pb.STEP_STATE_NOT_RUN),
        ("enter_saved_login", pb.STEP_STATE_NOT_RUN),
        ("enter_from_private_form", pb.STEP_STATE_DONE),
        ("finish", pb.STEP_STATE_DONE),
    ]
    assert "did_not_work" in steps[1].result
    assert "identical to step 2" in steps[2].reason
    assert "not entered again" in steps[3].reason
    # One submission of the saved login, one of the typed password: no more.
    assert shop_count(shop_site, "login") == 2


async def test_a_refused_login_can_not_be_picked_in_the_form(
    tasks_with, model_server, demo_person, shop_site
):
    wrong = await demo_person.vault.PutItem(
        claims.PutItemRequest(
            item=claims.VaultItem(
                kind=claims.ENTRY_KIND_SAVED_LOGIN,
                label="Old shop login",
                origin=shop_site.url,
                fields={"username": SHOP_TOTP_USERNAME, "password": "an-old-password"},
            )
        ),
        metadata=demo_person.meta,
    )
    model_server.script = [
        tool_call("navigate", {"url": f"{shop_site.url}/login"}),
        tool_call(
            "enter_saved_login",
            {"login_id": wrong.item.id, "fields": LOGIN_FIELDS, "submit": SUBMIT},
        ),
    ]
    stub = await tasks_with(model_url=model_server.url)
    task = await begin(stub, demo_person, "Sign in to the shop")
    form = await wait_for(stub, demo_person.meta, task.id, waiting(pb.WAIT_KIND_PRIVATE_FORM))

    reply = stub.SubmitPrivateForm(
        pb.SubmitPrivateFormRequest(task_id=task.id, form_id=form.wait.id, item_id=wrong.item.id),
        metadata=demo_person.meta,
    )
    await expect_error(reply, grpc.StatusCode.FAILED_PRECONDITION, reason="LOGIN_REFUSED")
    still = await wait_for(stub, demo_person.meta, task.id, waiting(pb.WAIT_KIND_PRIVATE_FORM))
    assert still.wait.id == form.wait.id
    assert shop_count(shop_site, "login") == 1


async def test_a_wrong_password_on_a_page_still_loading_is_not_judged_to_have_worked(
    tasks_with, model_server, demo_person
):
    """The next page loads a script in its head: read before it has
    loaded, it shows only its title, which must never count as signed in.
    The check waits for it to settle and reads the site's refusal."""
    site = await StockSignIn().start()
    try:
        wrong = await demo_person.vault.PutItem(
            claims.PutItemRequest(
                item=claims.VaultItem(
                    kind=claims.ENTRY_KIND_SAVED_LOGIN,
                    label="Stock site",
                    origin=site.url,
                    fields={"username": "ada@example.com", "password": "an-old-password"},
                )
            ),
            metadata=demo_person.meta,
        )
        entry = {
            "login_id": wrong.item.id,
            "fields": {"username": "input[name=email]", "password": "input[name=password]"},
            "submit": "form button",
        }
        model_server.script = [
            tool_call("navigate", {"url": f"{site.url}/login"}),
            tool_call("enter_saved_login", entry),
        ]
        stub = await tasks_with(model_url=model_server.url)
        task = await begin(stub, demo_person, "Sign in to the stock site")

        form = await wait_for(stub, demo_person.meta, task.id, waiting(pb.WAIT_KIND_PRIVATE_FORM))
        assert form.wait.form_kind == pb.FORM_KIND_LOGIN
        entered = (await steps_of(stub, demo_person.meta, task.id))[1]
        assert '"check": "did_not_work"' in entered.result
        assert "Incorrect email or password" in entered.result
        claim = await demo_person.claims.GetClaim(
            claims.GetClaimRequest(claim_id=entered.claim_id), metadata=demo_person.meta
        )
        assert claim.claim.check == claims.CHECK_RESULT_DID_NOT_WORK
        assert site.sign_ins == 1
    finally:
        await site.close()
