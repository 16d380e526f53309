"""G13: every private value is bound to where it may go, and a claim outside
its binding is refused, in words, with nothing written: a saved login to its
site (or the equivalent sites the person listed), a typed value to the page
and frame its private form was asked for, a card to the merchant (and hosted
payment pages) the payment's binding names."""

import asyncio

import grpc
import pytest
from pydantic import SecretStr

from nod.claims.v1 import claims_pb2 as pb
from nodkit.client import call_metadata
from nodtest.claims import bind_card, op_id, put_card, put_entry, put_login
from nodtest.rpc import expect_error

from .support import claim_request, live_holder

FAILED = grpc.StatusCode.FAILED_PRECONDITION
SHOP = "http://127.0.0.3:8000"
OTHER = "http://127.0.0.2:8000"
PROVIDER = "http://127.0.0.4:8000"


def where(request: pb.ClaimRequest, origin=None, frame="", submit="") -> pb.ClaimRequest:
    if origin is not None:
        request.origin = origin
    request.frame_origin = frame
    request.submit_origin = submit
    return request


async def claim_rows(db, person) -> int:
    row = await (
        await db.execute("SELECT count(*) FROM claims.claims WHERE owner = %s", (person,))
    ).fetchone()
    return row[0]


async def entry_left(db, entry_id) -> bool:
    row = await (
        await db.execute("SELECT count(*) FROM claims.private_entries WHERE id = %s", (entry_id,))
    ).fetchone()
    return row[0] == 1


async def refused(claims_stub, meta, request, reason):
    return await expect_error(claims_stub.Claim(request, metadata=meta), FAILED, reason=reason)


async def test_a_saved_login_goes_only_to_its_sites(claims_stub, vault_stub, as_person, db, person):
    item = await put_login(vault_stub, as_person, origin=SHOP)
    holder = await live_holder(claims_stub, as_person)
    cases = [
        ("PAGE_NOT_BOUND", dict(origin=OTHER), f"this page belongs to {OTHER}, not the site"),
        ("FRAME_NOT_BOUND", dict(origin=SHOP, frame=OTHER), f"comes from {OTHER}"),
        ("SUBMISSION_NOT_BOUND", dict(origin=SHOP, submit=OTHER), f"send what is typed to {OTHER}"),
    ]
    for reason, at, words in cases:
        error = await refused(
            claims_stub, as_person, where(claim_request(item, holder), **at), reason
        )
        assert words in error.message and SHOP in error.message
    assert await claim_rows(db, person) == 0

    granted = await claims_stub.Claim(
        where(claim_request(item, holder), SHOP, frame=SHOP, submit=SHOP), metadata=as_person
    )
    assert granted.granted and list(granted.bound_origins) == [SHOP]
    assert (granted.claim.frame_origin, granted.claim.submit_origin) == (SHOP, SHOP)


async def test_equivalent_origins_are_the_logins_sites_too(
    claims_stub, vault_stub, as_person, db, person
):
    sister = "https://login.shop.example"
    item = await put_login(
        vault_stub,
        as_person,
        origin=SHOP,
        equivalent_origins=[sister, "HTTPS://Login.Shop.Example"],
    )
    assert list(item.equivalent_origins) == [sister]
    listed = await vault_stub.ListItems(pb.ListItemsRequest(), metadata=as_person)
    assert [list(i.equivalent_origins) for i in listed.items] == [[sister]]
    holder = await live_holder(claims_stub, as_person)
    # The page on the sister site, posting back to the shop: both are the login's.
    granted = await claims_stub.Claim(
        where(claim_request(item, holder), sister, frame=sister, submit=SHOP), metadata=as_person
    )
    assert granted.granted and list(granted.bound_origins) == [SHOP, sister]
    # Any other site still gets nothing.
    await refused(
        claims_stub, as_person, where(claim_request(item, holder), OTHER), "PAGE_NOT_BOUND"
    )
    assert await claim_rows(db, person) == 1


async def test_a_typed_value_goes_only_to_the_page_and_frame_it_was_typed_for(
    claims_stub, vault_stub, as_person, db, person
):
    entry_id = await put_entry(
        vault_stub,
        as_person,
        pb.ENTRY_KIND_ONE_TIME_CODE,
        {"code": "492817"},
        origin=SHOP,
        frame_origin=PROVIDER,
    )
    holder = await live_holder(claims_stub, as_person)

    def code_claim(**at) -> pb.ClaimRequest:
        request = pb.ClaimRequest(
            operation_id=op_id(),
            kind=pb.ENTRY_KIND_ONE_TIME_CODE,
            item_id=entry_id,
            task_id="task-1",
            holder=holder,
        )
        return where(request, **at)

    cases = [
        # The model moved on to another site: the code typed for the shop stays.
        ("PAGE_NOT_BOUND", dict(origin=OTHER, frame=PROVIDER)),
        ("FRAME_NOT_BOUND", dict(origin=SHOP, frame=OTHER)),
        ("FRAME_NOT_BOUND", dict(origin=SHOP)),
        ("SUBMISSION_NOT_BOUND", dict(origin=SHOP, frame=PROVIDER, submit=OTHER)),
    ]
    for reason, at in cases:
        error = await refused(claims_stub, as_person, code_claim(**at), reason)
        assert "492817" not in error.message
        assert await entry_left(db, entry_id)
    first = await refused(claims_stub, as_person, code_claim(origin=OTHER), "PAGE_NOT_BOUND")
    assert first.message == (
        f"this page belongs to {OTHER}, not the page you typed it for ({SHOP}); nothing was entered"
    )
    assert await claim_rows(db, person) == 0

    granted = await claims_stub.Claim(
        code_claim(origin=SHOP, frame=PROVIDER, submit=SHOP), metadata=as_person
    )
    assert granted.granted and dict(granted.secret_fields) == {"code": "492817"}
    assert list(granted.bound_origins) == [SHOP, PROVIDER]
    assert not await entry_left(db, entry_id)


async def test_a_typed_password_without_a_frame_is_for_the_top_page(
    claims_stub, vault_stub, as_person
):
    entry_id = await put_entry(
        vault_stub, as_person, pb.ENTRY_KIND_TYPED_PASSWORD, {"password": "typed-pw-9"}, origin=SHOP
    )
    holder = await live_holder(claims_stub, as_person)
    request = pb.ClaimRequest(
        operation_id=op_id(),
        kind=pb.ENTRY_KIND_TYPED_PASSWORD,
        item_id=entry_id,
        origin=SHOP,
        task_id="task-1",
        holder=holder,
    )
    granted = await claims_stub.Claim(request, metadata=as_person)
    assert granted.granted and list(granted.bound_origins) == [SHOP]


async def test_a_card_without_a_binding_is_refused(claims_stub, vault_stub, as_person, db, person):
    card = await put_card(vault_stub, as_person)
    other_card = await put_card(vault_stub, as_person)
    holder = await live_holder(claims_stub, as_person)
    request = where(claim_request(card, holder), SHOP)
    error = await refused(claims_stub, as_person, request, "CARD_NOT_BOUND")
    assert "nothing was entered" in error.message
    # A binding of this operation for another card, or another task, is no binding.
    await bind_card(
        claims_stub,
        as_person,
        operation_id=request.operation_id,
        item_id=other_card.id,
        merchant_origin=SHOP,
    )
    await refused(claims_stub, as_person, request, "CARD_NOT_BOUND")
    other_task = where(claim_request(card, holder, task_id="task-2"), SHOP)
    await bind_card(
        claims_stub,
        as_person,
        operation_id=other_task.operation_id,
        item_id=card.id,
        merchant_origin=SHOP,
    )
    await refused(claims_stub, as_person, where(other_task, SHOP), "CARD_NOT_BOUND")
    assert await claim_rows(db, person) == 0


async def test_a_card_goes_only_to_the_shop_said_yes_to(
    claims_stub, vault_stub, as_person, db, person
):
    card = await put_card(vault_stub, as_person)
    holder = await live_holder(claims_stub, as_person)
    hosted = "https://pay.provider.example"

    async def bound_claim(**at) -> pb.ClaimRequest:
        request = where(claim_request(card, holder), **at)
        await bind_card(
            claims_stub,
            as_person,
            operation_id=request.operation_id,
            item_id=card.id,
            merchant_origin=SHOP,
            hosted_payment_origins=[hosted],
        )
        return request

    # The person said yes to the shop; the model went to another checkout.
    error = await refused(claims_stub, as_person, await bound_claim(origin=OTHER), "PAGE_NOT_BOUND")
    assert error.message == (
        f"this page belongs to {OTHER}, not the shop you said yes to ({SHOP} or {hosted});"
        " nothing was entered"
    )
    await refused(
        claims_stub,
        as_person,
        await bound_claim(origin=SHOP, frame=PROVIDER, submit=OTHER),
        "SUBMISSION_NOT_BOUND",
    )
    assert await claim_rows(db, person) == 0

    # The shop's page embedding its provider's card fields, posting to them.
    embedded = await claims_stub.Claim(
        await bound_claim(origin=SHOP, frame=PROVIDER, submit=PROVIDER), metadata=as_person
    )
    assert embedded.granted and list(embedded.bound_origins) == [SHOP, hosted, PROVIDER]
    # The hosted payment page the yes named.
    on_hosted = await claims_stub.Claim(
        await bound_claim(origin=hosted, submit=SHOP), metadata=as_person
    )
    assert on_hosted.granted and list(on_hosted.bound_origins) == [SHOP, hosted]


async def test_a_card_with_its_security_code_is_refused_whole_and_keeps_the_code(
    claims_stub, vault_stub, as_person, db, person
):
    """The path that takes a one-time entry holds the card's binding too."""
    card = await put_card(vault_stub, as_person)
    code_id = await put_entry(
        vault_stub, as_person, pb.ENTRY_KIND_SECURITY_CODE, {"security_code": "737"}
    )
    holder = await live_holder(claims_stub, as_person)
    request = where(claim_request(card, holder), OTHER)
    request.companion_entry_id = code_id
    await refused(claims_stub, as_person, request, "CARD_NOT_BOUND")
    await bind_card(
        claims_stub,
        as_person,
        operation_id=request.operation_id,
        item_id=card.id,
        merchant_origin=SHOP,
    )
    await refused(claims_stub, as_person, request, "PAGE_NOT_BOUND")
    assert await entry_left(db, code_id) and await claim_rows(db, person) == 0
    granted = await claims_stub.Claim(where(request, SHOP, frame=PROVIDER), metadata=as_person)
    assert granted.granted and granted.secret_fields["security_code"] == "737"
    assert list(granted.bound_origins) == [SHOP, PROVIDER]


async def test_a_security_code_alone_goes_nowhere(claims_stub, vault_stub, as_person, db):
    code_id = await put_entry(
        vault_stub, as_person, pb.ENTRY_KIND_SECURITY_CODE, {"security_code": "737"}
    )
    holder = await live_holder(claims_stub, as_person)
    request = pb.ClaimRequest(
        operation_id=op_id(),
        kind=pb.ENTRY_KIND_SECURITY_CODE,
        item_id=code_id,
        origin=SHOP,
        task_id="task-1",
        holder=holder,
    )
    await refused(claims_stub, as_person, request, "ENTRY_NOT_BOUND")
    assert await entry_left(db, code_id)


async def test_an_entry_put_without_a_page_is_never_granted(
    claims_stub, as_person, db, person, vault_stub
):
    """A one-time entry from before G13 (no page recorded) is refused."""
    entry_id = await put_entry(vault_stub, as_person, pb.ENTRY_KIND_ONE_TIME_CODE, {"code": "1234"})
    await db.execute(
        "UPDATE claims.private_entries SET origin = NULL, frame_origin = NULL WHERE id = %s",
        (entry_id,),
    )
    holder = await live_holder(claims_stub, as_person)
    request = pb.ClaimRequest(
        operation_id=op_id(),
        kind=pb.ENTRY_KIND_ONE_TIME_CODE,
        item_id=entry_id,
        origin="https://shop.example",
        task_id="task-1",
        holder=holder,
    )
    await refused(claims_stub, as_person, request, "ENTRY_NOT_BOUND")
    assert await entry_left(db, entry_id) and await claim_rows(db, person) == 0


async def test_the_batch_refuses_each_claim_outside_its_binding_and_grants_the_rest(
    claims_stub, vault_stub, as_person, db, person
):
    """Claims that arrive together go to the database in one statement: the
    rule holds for each claim in it."""
    login = await put_login(vault_stub, as_person, origin=SHOP)
    card = await put_card(vault_stub, as_person)
    holder = await live_holder(claims_stub, as_person)
    wanted = []
    for n in range(24):
        item = login if n % 2 else card
        request = claim_request(item, holder)
        if item is card:
            await bind_card(
                claims_stub,
                as_person,
                operation_id=request.operation_id,
                item_id=card.id,
                merchant_origin=SHOP,
            )
        good = n % 3 != 0
        wanted.append((where(request, SHOP if good else OTHER), good))
    answers = await asyncio.gather(
        *(claims_stub.Claim(r, metadata=as_person) for r, _ in wanted), return_exceptions=True
    )
    for (_, good), answer in zip(wanted, answers, strict=True):
        if good:
            assert not isinstance(answer, BaseException) and answer.granted
        else:
            assert isinstance(answer, grpc.aio.AioRpcError)
            assert answer.code() == FAILED and "not the" in (answer.details() or "")
    assert await claim_rows(db, person) == sum(good for _, good in wanted)


async def test_an_operation_id_reused_for_another_destination_is_refused(
    claims_stub, vault_stub, as_person
):
    item = await put_login(vault_stub, as_person, origin=SHOP, equivalent_origins=[PROVIDER])
    holder = await live_holder(claims_stub, as_person)
    request = where(claim_request(item, holder), SHOP, submit=SHOP)
    assert (await claims_stub.Claim(request, metadata=as_person)).granted
    # The same request again is a resend: answered from the record.
    again = await claims_stub.Claim(request, metadata=as_person)
    assert not again.granted and not again.bound_origins and not again.secret_fields
    for frame, submit in ((PROVIDER, SHOP), (SHOP, PROVIDER), (SHOP, "")):
        other = pb.ClaimRequest()
        other.CopyFrom(request)
        await expect_error(
            claims_stub.Claim(where(other, frame=frame, submit=submit), metadata=as_person),
            grpc.StatusCode.ALREADY_EXISTS,
            reason="OPERATION_ID_REUSED",
        )


async def test_a_resent_binding_answers_the_first_and_another_is_refused(
    claims_stub, vault_stub, as_person, db, person
):
    card = await put_card(vault_stub, as_person)
    operation_id = op_id()
    first = await bind_card(
        claims_stub,
        as_person,
        operation_id=operation_id,
        item_id=card.id,
        merchant_origin="HTTP://127.0.0.3:8000",
        hosted_payment_origins=[PROVIDER, "https://b.example", PROVIDER],
    )
    assert first.merchant_origin == SHOP
    # A set, as the yes names it: listed once each, in a fixed order.
    assert list(first.hosted_payment_origins) == [PROVIDER, "https://b.example"]
    resends = await asyncio.gather(
        *(
            bind_card(
                claims_stub,
                as_person,
                operation_id=operation_id,
                item_id=card.id,
                merchant_origin=SHOP,
                hosted_payment_origins=["https://b.example", PROVIDER],
            )
            for _ in range(8)
        )
    )
    assert all(resent == first for resent in resends)
    for change in (
        dict(merchant_origin=OTHER),
        dict(hosted_payment_origins=[PROVIDER]),
        dict(hosted_payment_origins=[PROVIDER, "https://b.example", OTHER]),
        dict(task_id="task-2"),
        dict(item_id=(await put_card(vault_stub, as_person)).id),
    ):
        values = dict(
            operation_id=operation_id,
            item_id=card.id,
            merchant_origin=SHOP,
            hosted_payment_origins=["https://b.example", PROVIDER],
        )
        await expect_error(
            bind_card(claims_stub, as_person, **(values | change)),
            grpc.StatusCode.ALREADY_EXISTS,
            reason="OPERATION_ID_REUSED",
        )
    rows = await (
        await db.execute(
            "SELECT merchant_origin FROM claims.card_bindings WHERE owner = %s", (person,)
        )
    ).fetchall()
    assert rows == [(SHOP,)]


@pytest.mark.parametrize(
    ("field", "change"),
    [
        ("operation_id", {"operation_id": ""}),
        ("item_id", {"item_id": "not-a-uuid"}),
        ("task_id", {"task_id": ""}),
        ("merchant_origin", {"merchant_origin": "https://shop.example/checkout"}),
        ("hosted_payment_origins[1]", {"hosted_payment_origins": [PROVIDER, "ftp://x.example"]}),
        (
            "hosted_payment_origins",
            {"hosted_payment_origins": [f"https://{n}.example" for n in range(11)]},
        ),
    ],
)
async def test_a_bad_binding_is_refused_naming_its_field(
    claims_stub, vault_stub, as_person, db, person, field, change
):
    card = await put_card(vault_stub, as_person)
    values = dict(operation_id=op_id(), item_id=card.id, merchant_origin=SHOP) | change
    await expect_error(
        bind_card(claims_stub, as_person, **values),
        grpc.StatusCode.INVALID_ARGUMENT,
        field=field,
    )
    rows = await (
        await db.execute("SELECT count(*) FROM claims.card_bindings WHERE owner = %s", (person,))
    ).fetchone()
    assert rows == (0,)


async def test_only_the_payments_service_binds_a_card(claims_with, vault_stub, as_person, person):
    tokens = {"browser": "b-token-4k", "tasks": "t-token-8j", "payments": "p-token-2z"}
    _, stub, _ = await claims_with(
        service_tokens=",".join(f"{name}:{token}" for name, token in tokens.items())
    )
    card = await put_card(vault_stub, as_person)
    request = pb.BindCardEntryRequest(
        operation_id=op_id(), item_id=card.id, task_id="task-1", merchant_origin=SHOP
    )
    for name in ("browser", "tasks"):
        await expect_error(
            stub.BindCardEntry(request, metadata=call_metadata(SecretStr(tokens[name]), person)),
            grpc.StatusCode.PERMISSION_DENIED,
            reason="CALLER_NOT_ALLOWED",
        )
    payments = call_metadata(SecretStr(tokens["payments"]), person)
    assert (await stub.BindCardEntry(request, metadata=payments)).binding.merchant_origin == SHOP


async def test_only_the_persons_own_saved_card_is_bound(
    claims_stub, vault_stub, as_person, service_token, db, person
):
    card = await put_card(vault_stub, as_person)
    login = await put_login(vault_stub, as_person)
    stranger = f"person-{op_id()}"
    someone_else = call_metadata(service_token, stranger)
    for meta, item_id in (
        (someone_else, card.id),  # another person's card looks like none
        (as_person, login.id),  # a login is not a card
        (as_person, "7d1f4f5e-5d7c-4a4e-9b8e-3c2b1a0f9e8d"),
    ):
        await expect_error(
            bind_card(claims_stub, meta, operation_id=op_id(), item_id=item_id),
            grpc.StatusCode.NOT_FOUND,
            reason="ITEM_NOT_FOUND",
        )
    rows = await (
        await db.execute(
            "SELECT count(*) FROM claims.card_bindings WHERE owner IN (%s, %s)", (person, stranger)
        )
    ).fetchone()
    assert rows == (0,)
