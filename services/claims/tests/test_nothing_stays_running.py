"""No claim stays RUNNING without an end: one whose end was never recorded
ends UNCERTAIN past NOD_CLAIMS_MAX_RUNNING_S, whatever its holder's lease;
one granted to a caller that had already given up ends UNCERTAIN at once."""

import asyncio
import contextlib

import grpc
import psycopg

from nod.claims.v1 import claims_pb2 as pb
from nodtest.browser import poll
from nodtest.claims import op_id, put_login
from nodtest.database import libpq_url
from nodtest.rpc import expect_error

from .support import claim_request, live_holder


async def state_of(stub, meta, task_id: str, operation_id: str) -> pb.Claim | None:
    reply = await stub.ListClaims(pb.ListClaimsRequest(task_id=task_id), metadata=meta)
    return next((c for c in reply.claims if c.operation_id == operation_id), None)


async def test_a_claim_running_past_the_limit_ends_uncertain_though_its_holder_lives(
    claims_with, as_person
):
    _, stub, vault = await claims_with(max_running_s=1.0, sweep_interval_s=0.2)
    item = await put_login(vault, as_person)
    holder = await live_holder(stub, as_person)
    request = claim_request(item, holder, task_id="task-overdue")
    granted = await stub.Claim(request, metadata=as_person)
    assert granted.granted

    async def ended():
        await stub.RenewHolder(pb.RenewHolderRequest(holder=holder), metadata=as_person)
        claim = await state_of(stub, as_person, "task-overdue", request.operation_id)
        return claim if claim.state == pb.CLAIM_STATE_UNCERTAIN else None

    claim = await poll(ended, timeout_s=10, what="the overdue claim to end")
    assert "longer than 1 s" in claim.reason
    late = await expect_error(
        stub.MarkSubmitted(
            pb.MarkSubmittedRequest(claim_id=claim.id, holder=holder), metadata=as_person
        ),
        grpc.StatusCode.FAILED_PRECONDITION,
        reason="CLAIM_FINAL",
    )
    assert "uncertain" in late.message


@contextlib.asynccontextmanager
async def claims_held_up(database_url):
    """Every new claim waits (its history row can't be written) until the block ends."""
    async with await psycopg.AsyncConnection.connect(libpq_url(database_url)) as conn:
        async with conn.transaction():
            await conn.execute("LOCK TABLE claims.claim_events IN EXCLUSIVE MODE")
            yield


async def test_a_grant_whose_caller_gave_up_ends_uncertain_at_once(
    claims_stub, vault_stub, as_person, claims_migrated
):
    item = await put_login(vault_stub, as_person)
    holder = await live_holder(claims_stub, as_person)
    request = claim_request(item, holder, task_id="task-gave-up")
    async with claims_held_up(claims_migrated):
        await expect_error(
            claims_stub.Claim(request, metadata=as_person, timeout=1.0),
            grpc.StatusCode.DEADLINE_EXCEEDED,
        )
        await asyncio.sleep(0.5)  # the lock is held past the caller's deadline

    async def ended():
        claim = await state_of(claims_stub, as_person, "task-gave-up", request.operation_id)
        return claim if claim and claim.state != pb.CLAIM_STATE_RUNNING else None

    claim = await poll(ended, timeout_s=10, what="the undelivered grant to end")
    assert claim.state == pb.CLAIM_STATE_UNCERTAIN
    assert "never reached the runner" in claim.reason


async def test_a_typed_entry_granted_to_a_caller_that_gave_up_ends_uncertain(
    claims_stub, vault_stub, as_person, claims_migrated
):
    entry = await vault_stub.PutPrivateEntry(
        pb.PutPrivateEntryRequest(
            task_id="task-gave-up-typed",
            kind=pb.ENTRY_KIND_ONE_TIME_CODE,
            fields={"code": "123456"},
        ),
        metadata=as_person,
    )
    holder = await live_holder(claims_stub, as_person)
    request = pb.ClaimRequest(
        operation_id=op_id(),
        kind=pb.ENTRY_KIND_ONE_TIME_CODE,
        item_id=entry.id,
        origin="https://shop.example",
        task_id="task-gave-up-typed",
        holder=holder,
    )
    async with claims_held_up(claims_migrated):
        await expect_error(
            claims_stub.Claim(request, metadata=as_person, timeout=1.0),
            grpc.StatusCode.DEADLINE_EXCEEDED,
        )
        await asyncio.sleep(0.5)

    async def ended():
        claim = await state_of(claims_stub, as_person, "task-gave-up-typed", request.operation_id)
        return claim if claim and claim.state != pb.CLAIM_STATE_RUNNING else None

    claim = await poll(ended, timeout_s=10, what="the undelivered grant to end")
    assert claim.state == pb.CLAIM_STATE_UNCERTAIN
    # The one-time code went with its claim: it is never entered, nor granted again.
    again = await claims_stub.Claim(request, metadata=as_person)
    assert not again.granted and not again.secret_fields
