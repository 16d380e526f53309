"""No claim stays RUNNING without an end: one whose end was never recorded
ends UNCERTAIN past NOD_CLAIMS_MAX_RUNNING_S, whatever its holder's lease;
one granted to a caller that had already given up ends UNCERTAIN at once.
And no Claim transaction outlives its caller: one stuck or hung before its
COMMIT is rolled back at the caller's deadline, granting nothing."""

import asyncio
import contextlib

import grpc
import psycopg

from nod.claims.v1 import claims_pb2 as pb
from nodkit import faults
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


def typed_entry_claim(entry_id: str, holder: str, task_id: str) -> pb.ClaimRequest:
    return pb.ClaimRequest(
        operation_id=op_id(),
        kind=pb.ENTRY_KIND_ONE_TIME_CODE,
        item_id=entry_id,
        origin="https://shop.example",
        task_id=task_id,
        holder=holder,
    )


async def put_code(vault_stub, meta, task_id: str, code: str) -> str:
    entry = await vault_stub.PutPrivateEntry(
        pb.PutPrivateEntryRequest(
            task_id=task_id,
            kind=pb.ENTRY_KIND_ONE_TIME_CODE,
            fields={"code": code},
            origin="https://shop.example",
        ),
        metadata=meta,
    )
    return entry.id


async def transactions_left_open(database_url) -> int:
    """The claims service's connections holding a transaction open, idle."""
    async with await psycopg.AsyncConnection.connect(
        libpq_url(database_url), autocommit=True
    ) as conn:
        cursor = await conn.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'nod-claims'"
            " AND state LIKE 'idle in transaction%'"
        )
        row = await cursor.fetchone()
    assert row is not None
    return row[0]


async def test_a_typed_entry_claim_stuck_past_its_callers_deadline_grants_nothing(
    claims_stub, vault_stub, as_person, claims_migrated
):
    """Its transaction gives up at the caller's deadline, before COMMIT, and
    is rolled back: no claim, the entry still unused, and the resend (the
    caller was told it may have happened, so it asks again with the same
    operation id) is the one grant."""
    entry_id = await put_code(vault_stub, as_person, "task-gave-up-typed", "123456")
    holder = await live_holder(claims_stub, as_person)
    request = typed_entry_claim(entry_id, holder, "task-gave-up-typed")
    async with claims_held_up(claims_migrated):
        await expect_error(
            claims_stub.Claim(request, metadata=as_person, timeout=1.0),
            grpc.StatusCode.DEADLINE_EXCEEDED,
        )
        await asyncio.sleep(0.5)  # the lock is held past the caller's deadline
    await asyncio.sleep(0.5)  # a commit the lock had held back would have landed by now

    left = await state_of(claims_stub, as_person, "task-gave-up-typed", request.operation_id)
    assert left is None
    again = await claims_stub.Claim(request, metadata=as_person)
    assert again.granted and again.secret_fields["code"] == "123456"
    once_more = await claims_stub.Claim(request, metadata=as_person)
    assert not once_more.granted and not once_more.secret_fields


@contextlib.contextmanager
def armed(spec: str):
    """Fault points armed in this process (the claims service runs in it)."""
    faults.arm(spec)
    try:
        yield
    finally:
        faults.arm("")


async def test_a_claim_hung_before_its_commit_ends_with_its_callers_deadline(
    claims_stub, vault_stub, as_person, claims_migrated, log_tee
):
    """A hang inside the Claim transaction holds nothing past the caller's
    deadline: the server side ends too (the handler is cancelled, the
    transaction rolled back before the service's own limits would end it),
    nothing is granted, and the same operation claimed again right after is
    not blocked by what the hung one had locked: it answers within its
    deadline, granted once."""
    entry_id = await put_code(vault_stub, as_person, "task-hung-claim", "654321")
    holder = await live_holder(claims_stub, as_person)
    request = typed_entry_claim(entry_id, holder, "task-hung-claim")
    with armed("claims.claim_before_commit=hang"):
        await expect_error(
            claims_stub.Claim(request, metadata=as_person, timeout=1.5),
            grpc.StatusCode.DEADLINE_EXCEEDED,
        )
        assert any("faults.fired" in line for line in log_tee.lines)
    gave_up = asyncio.get_running_loop().time()

    # Well inside db_call_timeout_s (10 s), the transaction's own bound.
    async def rolled_back():
        return await transactions_left_open(claims_migrated) == 0 or None

    await poll(rolled_back, timeout_s=3, what="the hung transaction to end")
    granted = await claims_stub.Claim(request, metadata=as_person, timeout=4.0)
    assert granted.granted and granted.secret_fields["code"] == "654321"
    assert asyncio.get_running_loop().time() - gave_up < 4.0
    claim = await state_of(claims_stub, as_person, "task-hung-claim", request.operation_id)
    assert claim is not None and claim.id == granted.claim.id
    # grpc aio cancelled the hung call's handler when its deadline passed.
    assert any('"status": "CANCELLED"' in line and "/Claim" in line for line in log_tee.lines), (
        "the hung Claim's handler was never cancelled"
    )
