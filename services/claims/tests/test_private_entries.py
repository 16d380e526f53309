"""One-time private entries: typed by the person, used once, then gone; a
card's security code travels only as such an entry."""

import asyncio

import grpc

from nod.claims.v1 import claims_pb2 as pb
from nodtest.claims import CANARY_CARD, bind_card, op_id, put_card
from nodtest.claims import put_entry as put_typed
from nodtest.rpc import expect_error

from .support import claim_request, live_holder

NOT_FOUND = grpc.StatusCode.NOT_FOUND


async def put_entry(vault_stub, meta, kind, fields, task_id="task-1") -> str:
    return await put_typed(vault_stub, meta, kind, fields, task_id=task_id)


def entry_claim(entry_id, holder, kind, task_id="task-1", operation_id=None):
    return pb.ClaimRequest(
        operation_id=operation_id or op_id(),
        kind=kind,
        item_id=entry_id,
        origin="https://shop.example",
        task_id=task_id,
        holder=holder,
    )


async def entry_rows(db, entry_id) -> int:
    row = await (
        await db.execute("SELECT count(*) FROM claims.private_entries WHERE id = %s", (entry_id,))
    ).fetchone()
    return row[0]


async def test_a_typed_code_is_released_once_and_destroyed(claims_stub, vault_stub, as_person, db):
    entry_id = await put_entry(
        vault_stub, as_person, pb.ENTRY_KIND_ONE_TIME_CODE, {"code": "492817"}
    )
    holder = await live_holder(claims_stub, as_person)
    operation_id = op_id()
    replies = await asyncio.gather(
        *(
            claims_stub.Claim(
                entry_claim(
                    entry_id, holder, pb.ENTRY_KIND_ONE_TIME_CODE, operation_id=operation_id
                ),
                metadata=as_person,
            )
            for _ in range(16)
        )
    )
    granted = [r for r in replies if r.granted]
    assert len(granted) == 1 and dict(granted[0].secret_fields) == {"code": "492817"}
    assert await entry_rows(db, entry_id) == 0
    # A new operation can't use it again: it is gone.
    await expect_error(
        claims_stub.Claim(
            entry_claim(entry_id, holder, pb.ENTRY_KIND_ONE_TIME_CODE), metadata=as_person
        ),
        NOT_FOUND,
        reason="ENTRY_NOT_FOUND",
    )


async def test_an_entry_belongs_to_its_task_and_kind(claims_stub, vault_stub, as_person, db):
    entry_id = await put_entry(
        vault_stub, as_person, pb.ENTRY_KIND_TYPED_PASSWORD, {"password": "typed-pw-1"}
    )
    holder = await live_holder(claims_stub, as_person)
    await expect_error(
        claims_stub.Claim(
            entry_claim(entry_id, holder, pb.ENTRY_KIND_TYPED_PASSWORD, task_id="task-2"),
            metadata=as_person,
        ),
        NOT_FOUND,
    )
    await expect_error(
        claims_stub.Claim(
            entry_claim(entry_id, holder, pb.ENTRY_KIND_ONE_TIME_CODE), metadata=as_person
        ),
        NOT_FOUND,
    )
    # The refused attempts rolled back: the entry is still there, unused.
    assert await entry_rows(db, entry_id) == 1
    granted = await claims_stub.Claim(
        entry_claim(entry_id, holder, pb.ENTRY_KIND_TYPED_PASSWORD), metadata=as_person
    )
    assert granted.granted and granted.secret_fields["password"] == "typed-pw-1"


async def test_entries_are_destroyed_when_the_task_ends(claims_stub, vault_stub, as_person, db):
    first = await put_entry(
        vault_stub, as_person, pb.ENTRY_KIND_ONE_TIME_CODE, {"code": "111111"}, "t-9"
    )
    second = await put_entry(
        vault_stub, as_person, pb.ENTRY_KIND_SECURITY_CODE, {"security_code": "123"}, "t-9"
    )
    other_task = await put_entry(
        vault_stub, as_person, pb.ENTRY_KIND_ONE_TIME_CODE, {"code": "222222"}, "t-8"
    )
    reply = await vault_stub.DiscardPrivateEntries(
        pb.DiscardPrivateEntriesRequest(task_id="t-9"), metadata=as_person
    )
    assert reply.discarded == 2
    assert [await entry_rows(db, e) for e in (first, second, other_task)] == [0, 0, 1]


async def test_a_card_with_its_security_code_for_one_payment(
    claims_stub, vault_stub, as_person, db
):
    card = await put_card(vault_stub, as_person)
    code_id = await put_entry(
        vault_stub, as_person, pb.ENTRY_KIND_SECURITY_CODE, {"security_code": "737"}
    )
    holder = await live_holder(claims_stub, as_person)
    request = claim_request(card, holder, origin="https://pay.shop.example")
    request.companion_entry_id = code_id
    await bind_card(
        claims_stub,
        as_person,
        operation_id=request.operation_id,
        item_id=card.id,
        merchant_origin="https://pay.shop.example",
    )
    reply = await claims_stub.Claim(request, metadata=as_person)
    assert reply.granted
    assert dict(reply.secret_fields) == {
        "number": CANARY_CARD,
        "expiry": "12/29",
        "holder_name": "Ada Lovelace",
        "security_code": "737",
    }
    assert reply.claim.companion_entry_id == code_id
    assert await entry_rows(db, code_id) == 0
    # The saved card stays; a second payment needs a new security code entry.
    second = claim_request(card, holder, origin="https://pay.shop.example")
    second.companion_entry_id = code_id
    await bind_card(
        claims_stub,
        as_person,
        operation_id=second.operation_id,
        item_id=card.id,
        merchant_origin="https://pay.shop.example",
    )
    await expect_error(
        claims_stub.Claim(second, metadata=as_person), NOT_FOUND, reason="ENTRY_NOT_FOUND"
    )
    second.ClearField("companion_entry_id")
    assert (await claims_stub.Claim(second, metadata=as_person)).granted


async def test_a_card_never_stores_a_security_code(vault_stub, as_person, db, person):
    for name in ("security_code", "cvc", "cvv"):
        await expect_error(
            vault_stub.PutItem(
                pb.PutItemRequest(
                    item=pb.VaultItem(
                        kind=pb.ENTRY_KIND_CARD,
                        fields={"number": CANARY_CARD, "expiry": "12/29", name: "123"},
                    )
                ),
                metadata=as_person,
            ),
            grpc.StatusCode.INVALID_ARGUMENT,
            field="item.fields.security_code",
        )
    row = await (
        await db.execute("SELECT count(*) FROM claims.vault_items WHERE owner = %s", (person,))
    ).fetchone()
    assert row == (0,)
