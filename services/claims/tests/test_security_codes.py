"""A card's security code (sensitive authentication data, PCI DSS 3.3.1 and
3.3.2) lives only as a sealed one-time entry until the payment that uses it:
destroyed with the claim that grants it, destroyed with its task when no
claim took it, and shown by nothing but the one granting reply. Nor does any
digest kept afterwards give it away to whoever holds the vault key."""

import uuid

import grpc
from google.protobuf import json_format

from nod.claims.v1 import claims_pb2 as pb
from nod_claims.domain.claims import EntryKind
from nod_claims.domain.vault_requests import REQUESTS_TABLE, entry_content
from nodkit.crypto import Sealer
from nodtest.canaries import Canary
from nodtest.claims import bind_card, put_card
from nodtest.leaks import find_leaks
from nodtest.observed import Observation
from nodtest.rpc import NodRpcError, expect_error

from .support import claim_request, live_holder

PAY_ORIGIN = "https://pay.shop.example"


class Seen:
    """What callers and the logs were shown during one test, but the
    granting reply's values."""

    def __init__(self, log_tee) -> None:
        self._log_tee = log_tee
        self._first_line = len(log_tee.lines)
        self.observations: list[Observation] = []

    def reply(self, where: str, message) -> None:
        text = json_format.MessageToJson(message, preserving_proto_field_name=True, indent=None)
        self.observations.append(Observation(f"reply: {where}", text))

    def error(self, where: str, error: NodRpcError) -> None:
        text = f"{error.code.name} {error.reason} {error.message} {error.metadata}"
        self.observations.append(Observation(f"error: {where}", text))

    def leaks_of(self, code: str) -> list:
        lines = self._log_tee.lines[self._first_line :]
        logged = [Observation("log: claims", line) for line in lines]
        return find_leaks([Canary(code, "security code")], [*self.observations, *logged])


def new_code() -> str:
    return f"{uuid.uuid4().int % 9000 + 1000}"


async def put_code(vault_stub, meta, code: str, task_id: str, request_id: str) -> str:
    request = pb.PutPrivateEntryRequest(
        task_id=task_id,
        kind=pb.ENTRY_KIND_SECURITY_CODE,
        fields={"security_code": code},
        request_id=request_id,
    )
    return (await vault_stub.PutPrivateEntry(request, metadata=meta)).id


async def sealed_of(db, entry_id: str) -> str:
    row = await (
        await db.execute(
            "SELECT sealed_fields->>'security_code' FROM claims.private_entries WHERE id = %s",
            (entry_id,),
        )
    ).fetchone()
    return row[0]


async def everything_in_the_claims_schema(db) -> str:
    tables = await (
        await db.execute(
            "SELECT table_name FROM information_schema.tables"
            " WHERE table_schema = 'claims' AND table_type = 'BASE TABLE'"
        )
    ).fetchall()
    texts = []
    for (table,) in tables:
        rows = await (await db.execute(f'SELECT t::text FROM claims."{table}" t')).fetchall()
        texts += [text for (text,) in rows]
    return "\n".join(texts)


async def bound(claims_stub, meta, request: pb.ClaimRequest) -> None:
    """What payments does when the card entry starts: the card may go to the shop."""
    await bind_card(
        claims_stub,
        meta,
        operation_id=request.operation_id,
        item_id=request.item_id,
        task_id=request.task_id,
        merchant_origin=PAY_ORIGIN,
    )


async def entry_rows(db, entry_id: str) -> int:
    found = await db.execute(
        "SELECT count(*) FROM claims.private_entries WHERE id = %s", (entry_id,)
    )
    return (await found.fetchone())[0]


def codes_the_digest_matches(vault_key: str, digest: str, owner: str, task_id: str, rid: str):
    """How many three- or four-digit codes the digest kept for a resend
    matches under the vault key: exactly one would give the code away."""
    sealer = Sealer(vault_key)
    context = (owner, REQUESTS_TABLE, rid)
    candidates = [f"{n:03d}" for n in range(1000)] + [f"{n:04d}" for n in range(10000)]
    return sum(
        sealer.digest_matches(
            digest,
            entry_content(task_id, EntryKind.SECURITY_CODE, {"security_code": candidate}),
            *context,
        )
        for candidate in candidates
    )


async def request_digest(db, owner: str, rid: str) -> str:
    row = await (
        await db.execute(
            "SELECT digest FROM claims.vault_requests WHERE owner = %s AND request_id = %s",
            (owner, rid),
        )
    ).fetchone()
    return row[0]


async def test_a_security_code_is_destroyed_by_the_claim_that_grants_it(
    claims_stub, vault_stub, as_person, person, db, log_tee, vault_key
):
    seen = Seen(log_tee)
    code, task_id, rid = new_code(), f"task-{uuid.uuid4().hex[:8]}", f"req-{uuid.uuid4().hex}"
    card = await put_card(vault_stub, as_person)
    entry_id = await put_code(vault_stub, as_person, code, task_id, rid)
    sealed = await sealed_of(db, entry_id)
    assert sealed and sealed in await everything_in_the_claims_schema(db)
    holder = await live_holder(claims_stub, as_person)
    request = claim_request(card, holder, origin=PAY_ORIGIN, task_id=task_id)
    request.companion_entry_id = entry_id
    await bound(claims_stub, as_person, request)

    granted = await claims_stub.Claim(request, metadata=as_person)

    assert granted.granted and granted.secret_fields["security_code"] == code
    assert await entry_rows(db, entry_id) == 0
    assert sealed not in await everything_in_the_claims_schema(db)
    # What the caller and a person can read of the claim afterwards.
    claim_id = granted.claim.id
    shown = pb.ClaimResponse()
    shown.CopyFrom(granted)
    shown.ClearField("secret_fields")
    seen.reply("Claim (granted, without its values)", shown)
    seen.reply("Claim (resent)", await claims_stub.Claim(request, metadata=as_person))
    find = pb.FindClaimRequest(
        operation_id=request.operation_id,
        kind=request.kind,
        item_id=card.id,
        task_id=task_id,
        companion_entry_id=entry_id,
    )
    seen.reply("FindClaim", await claims_stub.FindClaim(find, metadata=as_person))
    get = pb.GetClaimRequest(claim_id=claim_id)
    seen.reply("GetClaim", await claims_stub.GetClaim(get, metadata=as_person))
    listed = pb.ListClaimsRequest(task_id=task_id)
    seen.reply("ListClaims", await claims_stub.ListClaims(listed, metadata=as_person))
    events = pb.ListClaimEventsRequest(claim_id=claim_id)
    seen.reply("ListClaimEvents", await claims_stub.ListClaimEvents(events, metadata=as_person))
    submitted = pb.MarkSubmittedRequest(claim_id=claim_id, holder=holder)
    seen.reply("MarkSubmitted", await claims_stub.MarkSubmitted(submitted, metadata=as_person))
    # A second payment can't use it again, and is not told it.
    again = claim_request(card, holder, origin=PAY_ORIGIN, task_id=task_id)
    again.companion_entry_id = entry_id
    await bound(claims_stub, as_person, again)
    seen.error(
        "Claim (used again)",
        await expect_error(
            claims_stub.Claim(again, metadata=as_person),
            grpc.StatusCode.NOT_FOUND,
            reason="ENTRY_NOT_FOUND",
        ),
    )
    assert seen.leaks_of(code) == []
    # The resend check kept for PutPrivateEntry can't be tried code by code.
    digest = await request_digest(db, person, rid)
    assert codes_the_digest_matches(vault_key, digest, person, task_id, rid) != 1


async def test_a_security_code_no_claim_took_goes_with_its_task(
    claims_stub, vault_stub, as_person, person, db, log_tee, vault_key
):
    seen = Seen(log_tee)
    code, task_id, rid = new_code(), f"task-{uuid.uuid4().hex[:8]}", f"req-{uuid.uuid4().hex}"
    card = await put_card(vault_stub, as_person)
    entry_id = await put_code(vault_stub, as_person, code, task_id, rid)
    sealed = await sealed_of(db, entry_id)
    # Refused: its runner's lease was never renewed. Nothing was granted.
    request = claim_request(card, f"runner-gone-{uuid.uuid4().hex[:8]}", task_id=task_id)
    request.origin = PAY_ORIGIN
    request.companion_entry_id = entry_id
    await bound(claims_stub, as_person, request)
    seen.error(
        "Claim (refused)",
        await expect_error(
            claims_stub.Claim(request, metadata=as_person),
            grpc.StatusCode.FAILED_PRECONDITION,
            reason="HOLDER_LEASE_EXPIRED",
        ),
    )
    found = await claims_stub.FindClaim(
        pb.FindClaimRequest(
            operation_id=request.operation_id,
            kind=request.kind,
            item_id=card.id,
            task_id=task_id,
            companion_entry_id=entry_id,
        ),
        metadata=as_person,
    )
    assert not found.found
    seen.reply("FindClaim", found)
    # Kept sealed for a retry within the task; its end destroys it.
    assert await entry_rows(db, entry_id) == 1

    discarded = await vault_stub.DiscardPrivateEntries(
        pb.DiscardPrivateEntriesRequest(task_id=task_id), metadata=as_person
    )

    assert discarded.discarded == 1
    assert await entry_rows(db, entry_id) == 0
    assert sealed not in await everything_in_the_claims_schema(db)
    assert seen.leaks_of(code) == []
    # The record of the request that sent it holds nothing of it either.
    digest = await request_digest(db, person, rid)
    assert codes_the_digest_matches(vault_key, digest, person, task_id, rid) != 1
