"""enter_saved_login, ask_private_form, enter_from_private_form: private
values go in only through the browser service, under a claim, and never
reach the model (G1, G6)."""

import uuid
from dataclasses import replace
from urllib.parse import urlsplit

from nod.claims.v1 import claims_pb2 as claims
from nod_tasks.app.tools.base import Arguments, Outcome, StepContext, WaitFor
from nod_tasks.app.tools.entering import Entry, Submitted, enter, record_check, submitted
from nod_tasks.domain import steps
from nod_tasks.domain.checks import Check, check_code, check_login, refused_logins
from nod_tasks.domain.steps import StepEnd
from nod_tasks.domain.tasks import FormKind, Wait, WaitKind

ASK_KINDS = {k.value: k for k in FormKind}
REFUSED_LOGIN = (
    "this saved login did not get through earlier in this task and is not entered again:"
    " use ask_private_form with kind login"
)


def current_origin(ctx: StepContext) -> str:
    """The site of the last page the task saw (a private form names it)."""
    for step in reversed(ctx.earlier):
        url = ((step.result or {}).get("page") or {}).get("url", "")
        if url:
            parts = urlsplit(url)
            return f"{parts.scheme}://{parts.netloc}"
    return ""


def for_login(end: StepEnd, login_id: str) -> StepEnd:
    """The saved login a step entered (or may have), for the G6 rule."""
    return replace(end, result={**end.result, "login_id": login_id})


def login_form(origin: str, why: str) -> Wait:
    return Wait(
        WaitKind.PRIVATE_FORM,
        str(uuid.uuid4()),
        prompt=why,
        form_kind=FormKind.LOGIN,
        origin=origin,
    )


async def enter_saved_login(ctx: StepContext, args: Arguments) -> Outcome:
    login_id = str(args["login_id"])
    login = next((x for x in ctx.context.logins if x.id == login_id), None)
    if login is None:
        return steps.not_run("there is no saved login with that id")
    if login_id in refused_logins(ctx.earlier):
        return steps.not_run(REFUSED_LOGIN)
    entry = Entry(
        claims.ENTRY_KIND_SAVED_LOGIN,
        login_id,
        dict(args["fields"]),
        str(args.get("submit", "")),
        ctx.operation_id,
    )
    done = await enter(ctx, entry)
    if not isinstance(done, Submitted):
        return for_login(done, login_id)
    check = check_login(done.page)
    await record_check(ctx, done.claim.id, check)
    if check == Check.WORKED:
        return submitted(done, check, login_id=login_id)
    # G6: it is not entered again in this task; the person is asked instead.
    why = f"The saved login “{login.label}” did not get through. Pick another or type the password."
    ctx.then_wait = login_form(login.origin, why)
    form = {"form_id": ctx.then_wait.id, "kind": FormKind.LOGIN.value, "state": "open"}
    return submitted(done, check, login_id=login_id, private_form=form)


async def ask_private_form(ctx: StepContext, args: Arguments) -> Outcome:
    kind = ASK_KINDS[str(args["kind"])]
    reason = str(args["reason"]).strip()[:500] or "nod needs a private value from you"
    wait = Wait(
        WaitKind.PRIVATE_FORM,
        str(uuid.uuid4()),
        prompt=reason,
        form_kind=kind,
        origin=current_origin(ctx),
        step=ctx.step.number,
    )
    return WaitFor(wait)


FORM_ENTRY_KINDS = {
    FormKind.ONE_TIME_CODE.value: claims.ENTRY_KIND_ONE_TIME_CODE,
    FormKind.PASSWORD.value: claims.ENTRY_KIND_TYPED_PASSWORD,
    FormKind.LOGIN.value: claims.ENTRY_KIND_TYPED_PASSWORD,
}


async def enter_from_private_form(ctx: StepContext, args: Arguments) -> Outcome:
    form = ctx.task.forms.get(str(args["form_id"]))
    if form is None:
        return steps.not_run("no private form with that id was filled in this task")
    if form["kind"] == FormKind.SECURITY_CODE.value:
        return steps.not_run("a security code goes in with pay (security_code_form_id)")
    if form.get("picked"):
        if form["item_id"] in refused_logins(ctx.earlier):
            return steps.not_run(REFUSED_LOGIN)
        kind = claims.ENTRY_KIND_SAVED_LOGIN
    else:
        kind = FORM_ENTRY_KINDS[form["kind"]]
    entry = Entry(
        kind, form["item_id"], dict(args["fields"]), str(args.get("submit", "")), ctx.operation_id
    )
    picked = {"login_id": form["item_id"]} if form.get("picked") else {}
    done = await enter(ctx, entry)
    if not isinstance(done, Submitted):
        return for_login(done, form["item_id"]) if picked else done
    is_code = form["kind"] == FormKind.ONE_TIME_CODE.value
    check = check_code(done.page) if is_code else check_login(done.page)
    await record_check(ctx, done.claim.id, check)
    return submitted(done, check, **picked)
