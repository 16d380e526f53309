"""One request, one saved record: PutItem and PutPrivateEntry with a
request_id. A resend with the same id and content (after a lost answer, a
form posted twice) answers the record the first request made and stores
nothing; the same id with other content is refused, naming no value; a
hostile id is bad input. Without a request_id every call saves, as before.
Counted in the vault's own rows."""

import asyncio
import uuid

import grpc
import pytest

from nod.claims.v1 import claims_pb2 as pb
from nod.claims.v1 import claims_pb2_grpc
from nodkit.client import call_metadata
from nodtest.canaries import register
from nodtest.claims import op_id
from nodtest.fault_proxy import Fault, GrpcFaultProxy
from nodtest.rpc import expect_error
from nodtest.storms import StormTally, fast_reconnect_channel, until_answered

from .support import live_holder

INVALID = grpc.StatusCode.INVALID_ARGUMENT
REUSED = grpc.StatusCode.ALREADY_EXISTS
# Long enough for a loaded machine; a lost answer is an error well before.
TIMEOUT_S = 20
HOSTILE_IDS = (
    "nul\x00inside",
    "x" * 129,
    " leading-space",
    "tab\there",
    "line\nbreak",
    "card 4111 1111 1111 1111",
)


def request_id() -> str:
    return f"req-{uuid.uuid4().hex}"


def login_request(rid: str, password: str, **item) -> pb.PutItemRequest:
    values = {
        "kind": pb.ENTRY_KIND_SAVED_LOGIN,
        "label": "shop",
        "origin": "https://shop.example",
        "fields": {"username": "ada@example.com", "password": register(password, "password")},
        **item,
    }
    return pb.PutItemRequest(item=pb.VaultItem(**values), request_id=rid)


def entry_request(rid: str, code: str, task_id: str = "task-1") -> pb.PutPrivateEntryRequest:
    return pb.PutPrivateEntryRequest(
        task_id=task_id,
        kind=pb.ENTRY_KIND_ONE_TIME_CODE,
        fields={"code": register(code, "one-time code")},
        request_id=rid,
        origin="https://shop.example",
    )


async def count(db, table: str, person: str) -> int:
    found = await db.execute(f"SELECT count(*) FROM claims.{table} WHERE owner = %s", (person,))
    row = await found.fetchone()
    return row[0]


@pytest.fixture
async def lossy_vault(claims_with):
    """(a vault stub whose next call can lose its answer, its proxy, a direct stub)."""
    address, _claims, direct = await claims_with()
    proxy = await GrpcFaultProxy.for_address(address)
    channel = fast_reconnect_channel(proxy.address)
    yield claims_pb2_grpc.VaultServiceStub(channel), proxy, direct
    await channel.close()
    await proxy.close()


async def lose_the_answer(proxy, call) -> None:
    proxy.arm(Fault.LOSE_ANSWER)
    with pytest.raises(grpc.aio.AioRpcError) as lost:
        await call()
    assert lost.value.code() == grpc.StatusCode.UNAVAILABLE


async def resend(call):
    """The caller's resend after the lost answer, sent again while it too is
    cut (the channel may still be closing the connection the proxy cut)."""
    return await until_answered(call, StormTally("resend"), tries=5)


async def test_a_put_item_resent_after_a_lost_answer_finds_the_first_item(
    lossy_vault, as_person, person, db
):
    vault, proxy, _direct = lossy_vault
    request = login_request(request_id(), "pw-resent-item-1")
    await lose_the_answer(proxy, lambda: vault.PutItem(request, metadata=as_person, timeout=5))
    assert await count(db, "vault_items", person) == 1  # it was served

    resent = (
        await resend(lambda: vault.PutItem(request, metadata=as_person, timeout=TIMEOUT_S))
    ).item
    again = (await vault.PutItem(request, metadata=as_person, timeout=TIMEOUT_S)).item
    assert resent == again
    listed = (await vault.ListItems(pb.ListItemsRequest(), metadata=as_person)).items
    assert [item.id for item in listed] == [resent.id]
    assert await count(db, "vault_items", person) == 1
    assert proxy.injected == {Fault.LOSE_ANSWER: 1}


async def test_a_card_resent_as_spelled_otherwise_is_the_same_card(
    vault_stub, as_person, db, person
):
    number = register("4000 0566 5566 5556", "card number")
    rid = request_id()

    def card(spelled: str) -> pb.PutItemRequest:
        fields = {"number": spelled, "expiry": "09/31"}
        return pb.PutItemRequest(
            item=pb.VaultItem(kind=pb.ENTRY_KIND_CARD, fields=fields), request_id=rid
        )

    first = (await vault_stub.PutItem(card(number), metadata=as_person)).item
    again = (await vault_stub.PutItem(card(number.replace(" ", "")), metadata=as_person)).item
    assert again.id == first.id
    assert await count(db, "vault_items", person) == 1


async def test_a_private_entry_resent_after_a_lost_answer_finds_the_first_entry(
    lossy_vault, claims_stub, as_person, person, db
):
    vault, proxy, _direct = lossy_vault
    request = entry_request(request_id(), "731904")
    await lose_the_answer(
        proxy, lambda: vault.PutPrivateEntry(request, metadata=as_person, timeout=5)
    )
    assert await count(db, "private_entries", person) == 1

    entry_id = (
        await resend(lambda: vault.PutPrivateEntry(request, metadata=as_person, timeout=TIMEOUT_S))
    ).id
    assert await count(db, "private_entries", person) == 1

    # Used once, it is gone; a late resend still answers its id and stores nothing.
    holder = await live_holder(claims_stub, as_person)
    granted = await claims_stub.Claim(
        pb.ClaimRequest(
            operation_id=op_id(),
            kind=pb.ENTRY_KIND_ONE_TIME_CODE,
            item_id=entry_id,
            origin="https://shop.example",
            task_id="task-1",
            holder=holder,
        ),
        metadata=as_person,
    )
    assert granted.granted
    late = await vault.PutPrivateEntry(request, metadata=as_person, timeout=TIMEOUT_S)
    assert late.id == entry_id
    assert await count(db, "private_entries", person) == 0


async def test_a_request_id_reused_for_other_content_is_refused(vault_stub, as_person, person, db):
    rid = request_id()
    first = (await vault_stub.PutItem(login_request(rid, "pw-reused-1"), metadata=as_person)).item
    others = [
        login_request(rid, "pw-reused-2"),
        login_request(rid, "pw-reused-1", label="another label"),
        login_request(rid, "pw-reused-1", origin="https://other.example"),
        login_request(rid, "pw-reused-1", id=first.id),
    ]
    for other in others:
        error = await expect_error(
            vault_stub.PutItem(other, metadata=as_person),
            REUSED,
            reason="REQUEST_ID_REUSED",
            field="request_id",
        )
        assert "pw-reused" not in error.message
    # The id is the person's for PutPrivateEntry as well.
    await expect_error(
        vault_stub.PutPrivateEntry(entry_request(rid, "220468"), metadata=as_person),
        REUSED,
        reason="REQUEST_ID_REUSED",
    )

    entry_rid = request_id()
    await vault_stub.PutPrivateEntry(entry_request(entry_rid, "118833"), metadata=as_person)
    for other in (entry_request(entry_rid, "118834"), entry_request(entry_rid, "118833", "task-2")):
        error = await expect_error(
            vault_stub.PutPrivateEntry(other, metadata=as_person),
            REUSED,
            reason="REQUEST_ID_REUSED",
            field="request_id",
        )
        assert "11883" not in error.message
    assert await count(db, "vault_items", person) == 1
    assert await count(db, "private_entries", person) == 1
    listed = (await vault_stub.ListItems(pb.ListItemsRequest(), metadata=as_person)).items
    assert [(item.id, item.label) for item in listed] == [(first.id, "shop")]


@pytest.mark.parametrize("hostile", HOSTILE_IDS, ids=range(len(HOSTILE_IDS)))
async def test_a_hostile_request_id_is_refused_naming_the_field(
    vault_stub, as_person, person, db, hostile
):
    for call in (
        vault_stub.PutItem(login_request(hostile, "pw-hostile-id-1"), metadata=as_person),
        vault_stub.PutPrivateEntry(entry_request(hostile, "550912"), metadata=as_person),
    ):
        error = await expect_error(call, INVALID, field="request_id")
        assert "4111" not in error.message
    for table in ("vault_items", "private_entries", "vault_requests"):
        assert await count(db, table, person) == 0


async def test_concurrent_resends_save_one_record(vault_stub, as_person, person, db):
    item = login_request(request_id(), "pw-concurrent-1")
    entry = entry_request(request_id(), "604218")
    items, entries = await asyncio.gather(
        asyncio.gather(*(vault_stub.PutItem(item, metadata=as_person) for _ in range(16))),
        asyncio.gather(*(vault_stub.PutPrivateEntry(entry, metadata=as_person) for _ in range(16))),
    )
    assert len({reply.item.id for reply in items}) == 1
    assert len({reply.id for reply in entries}) == 1
    assert await count(db, "vault_items", person) == 1
    assert await count(db, "private_entries", person) == 1
    assert await count(db, "vault_requests", person) == 2


async def test_a_resend_answers_the_item_as_it_is_now_and_never_brings_it_back(
    vault_stub, as_person, person, db
):
    rid = request_id()
    first = (await vault_stub.PutItem(login_request(rid, "pw-as-now-1"), metadata=as_person)).item
    renamed = login_request("", "pw-as-now-2", id=first.id, label="renamed")
    await vault_stub.PutItem(renamed, metadata=as_person)
    resent = (await vault_stub.PutItem(login_request(rid, "pw-as-now-1"), metadata=as_person)).item
    assert (resent.id, resent.label) == (first.id, "renamed")

    await vault_stub.DeleteItem(pb.DeleteItemRequest(item_id=first.id), metadata=as_person)
    await expect_error(
        vault_stub.PutItem(login_request(rid, "pw-as-now-1"), metadata=as_person),
        grpc.StatusCode.NOT_FOUND,
        reason="ITEM_NOT_FOUND",
    )
    assert await count(db, "vault_items", person) == 0


async def test_request_ids_are_each_persons_own_and_optional(
    vault_stub, as_person, person, db, service_token
):
    rid = request_id()
    mine = (await vault_stub.PutItem(login_request(rid, "pw-own-1"), metadata=as_person)).item
    someone = call_metadata(service_token, f"person-{uuid.uuid4().hex[:12]}")
    theirs = (await vault_stub.PutItem(login_request(rid, "pw-own-2"), metadata=someone)).item
    assert theirs.id != mine.id
    # Without a request id, each call saves (today's behaviour).
    for _ in range(2):
        await vault_stub.PutItem(login_request("", "pw-own-1"), metadata=as_person)
        await vault_stub.PutPrivateEntry(entry_request("", "907731"), metadata=as_person)
    assert await count(db, "vault_items", person) == 3
    assert await count(db, "private_entries", person) == 2


async def test_what_a_resend_is_compared_with_holds_no_value(vault_stub, as_person, person, db):
    password, code = "pw-digest-only-1", "665544"
    await vault_stub.PutItem(login_request(request_id(), password), metadata=as_person)
    await vault_stub.PutPrivateEntry(entry_request(request_id(), code), metadata=as_person)
    found = await db.execute(
        "SELECT call, digest FROM claims.vault_requests WHERE owner = %s ORDER BY call", (person,)
    )
    rows = await found.fetchall()
    assert [call for call, _ in rows] == ["put_item", "put_private_entry"]
    for _, digest in rows:
        assert password not in digest and code not in digest
