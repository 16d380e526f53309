"""Claims under lost commits and lost answers: a storm of faults on the claim
path, both between the claims service and PostgreSQL (a connection dropped
right after or right before the COMMIT, a delayed commit, a cut link) and
between its callers and the service (a lost answer, a dropped or delayed
request). Each caller resends the same request after an error, as a client
does after a lost answer, until it has a definite answer.

What must hold (G2, G5): no operation is granted twice (at most one reply
with the private value per operation id, one row per operation id); a
resend is answered from the record, never told "not granted, try again";
a grant whose answer was lost ends UNCERTAIN, and nothing stays RUNNING."""

import asyncio
import random
import time

import grpc
import psycopg
import pytest

from nod.claims.v1 import claims_pb2 as pb
from nod.claims.v1 import claims_pb2_grpc
from nodtest.claims import op_id, put_login
from nodtest.database import libpq_url
from nodtest.fault_proxy import Fault, GrpcFaultProxy, PostgresFaultProxy
from nodtest.soak_report import soak_scale
from nodtest.storms import (
    StormTally,
    arm_at_random,
    every_fault,
    fast_reconnect_channel,
    injected_total,
    run_storm,
    until_answered,
)

from .support import LOST_GRANT, ClaimCaller, claim_request, live_holder

pytestmark = pytest.mark.storm

CLAIM_INJECTIONS = 1000
# For each of MarkSubmitted, MarkUncertain and RecordCheck.
INJECTIONS_PER_CALL = 200
CALLERS = 8
# The claim's own statement: the storm's database faults hit the grant itself.
CLAIM_INSERT = b"INSERT INTO claims.claims"


async def renew_forever(holder, stub, meta, tally):
    """As a live runner does, however long a loaded machine takes (the first
    lease is taken before the storm starts)."""
    while True:
        await asyncio.sleep(2)
        await until_answered(
            lambda: stub.RenewHolder(pb.RenewHolderRequest(holder=holder), metadata=meta), tally
        )


@pytest.mark.timeout(300 * soak_scale())
async def test_a_storm_of_lost_commits_and_answers_never_grants_twice(
    claims_with, claims_migrated, as_person, person, db
):
    tally = StormTally("claims.Claim")
    to_database = await PostgresFaultProxy.for_url(claims_migrated)
    address, direct, vault = await claims_with(
        database_url=to_database.url_for(claims_migrated), db_call_timeout_s=5.0
    )
    to_claims = await GrpcFaultProxy.for_address(address)
    channel = fast_reconnect_channel(to_claims.address)
    proxied = claims_pb2_grpc.ClaimsServiceStub(channel)
    item = await put_login(vault, as_person)
    holder = await live_holder(direct, as_person)
    renewing = asyncio.ensure_future(renew_forever(holder, direct, as_person, tally))
    rng = random.Random(20261202)
    faults = every_fault(to_database, to_claims)
    target = CLAIM_INJECTIONS * soak_scale()
    caller_of_claims = ClaimCaller(proxied, direct, holder, as_person, tally)

    async def one_operation() -> None:
        request = claim_request(item, holder)
        arm_at_random(rng, faults, delay_s=0.2, touching=CLAIM_INSERT)
        if (reply := await caller_of_claims.claim(request)) is not None:
            await caller_of_claims.end(reply)

    async def caller() -> None:
        while injected_total(to_database, to_claims) < target:
            tally.operations += 1
            await one_operation()

    started = time.monotonic()
    try:
        await asyncio.gather(*(caller() for _ in range(CALLERS)))
    finally:
        renewing.cancel()
        await channel.close()
        await to_claims.close()
        await to_database.close()
    elapsed = time.monotonic() - started

    rows = await (
        await db.execute(
            "SELECT count(*), count(DISTINCT operation_id),"
            " count(*) FILTER (WHERE state = 'uncertain'),"
            " count(*) FILTER (WHERE state = 'running')"
            " FROM claims.claims WHERE owner = %s",
            (person,),
        )
    ).fetchone()
    assert rows is not None
    claimed, distinct, tally.uncertain, tally.running_left = rows
    tally.duplicates = caller_of_claims.duplicates
    tally.report(to_database, to_claims)
    print(f"[claims.Claim] {elapsed:.1f} s")
    assert tally.wrong_answers == []
    assert tally.duplicates == 0
    assert claimed == distinct == tally.operations
    assert tally.running_left == 0
    assert injected_total(to_database, to_claims) >= target
    # Every operation ended with a definite record; the lost grants are UNCERTAIN.
    assert len(caller_of_claims.secrets_by_operation) + tally.uncertain == tally.operations


async def test_the_proxy_drops_exactly_where_it_says(claims_with, claims_migrated, as_person, db):
    """The storm's faults are what their names say: after COMMIT the row is
    there and the client never heard; before it, it isn't; a lost answer
    was served; a dropped request never was."""
    to_database = await PostgresFaultProxy.for_url(claims_migrated)
    await db.execute("CREATE TABLE IF NOT EXISTS fault_probe (id text PRIMARY KEY)")
    url = libpq_url(to_database.url_for(claims_migrated))

    async def write_through_proxy(row: str, fault: Fault, *, autocommit: bool) -> None:
        async with await psycopg.AsyncConnection.connect(url, autocommit=autocommit) as conn:
            await conn.execute("SELECT 1")  # not a commit: the fault waits for one
            to_database.arm(fault)
            with pytest.raises(psycopg.OperationalError):
                await conn.execute("INSERT INTO fault_probe VALUES (%s)", (row,))
                await conn.commit()

    async def stored(row: str) -> bool:
        found = await db.execute("SELECT 1 FROM fault_probe WHERE id = %s", (row,))
        return await found.fetchone() is not None

    rows = {name: op_id() for name in ("after", "before", "after_autocommit")}
    try:
        await write_through_proxy(rows["after"], Fault.DROP_AFTER_COMMIT, autocommit=False)
        await write_through_proxy(rows["before"], Fault.DROP_BEFORE_COMMIT, autocommit=False)
        await write_through_proxy(
            rows["after_autocommit"], Fault.DROP_AFTER_COMMIT, autocommit=True
        )
    finally:
        await to_database.close()
    assert await stored(rows["after"]) and await stored(rows["after_autocommit"])
    assert not await stored(rows["before"])
    assert to_database.injected == {Fault.DROP_AFTER_COMMIT: 2, Fault.DROP_BEFORE_COMMIT: 1}

    address, direct, vault = await claims_with()
    to_claims = await GrpcFaultProxy.for_address(address)
    channel = fast_reconnect_channel(to_claims.address)
    proxied = claims_pb2_grpc.ClaimsServiceStub(channel)
    item = await put_login(vault, as_person)
    holder = await live_holder(direct, as_person)
    try:
        for fault, served in ((Fault.LOSE_ANSWER, True), (Fault.DROP_REQUEST, False)):
            request = claim_request(item, holder)
            to_claims.arm(fault)
            with pytest.raises(grpc.aio.AioRpcError) as lost:
                await proxied.Claim(request, metadata=as_person, timeout=5)
            assert lost.value.code() == grpc.StatusCode.UNAVAILABLE
            found = await direct.FindClaim(
                pb.FindClaimRequest(
                    operation_id=request.operation_id,
                    kind=request.kind,
                    item_id=request.item_id,
                    task_id=request.task_id,
                ),
                metadata=as_person,
            )
            assert found.found is served
    finally:
        await channel.close()
        await to_claims.close()
    assert to_claims.injected == {Fault.LOSE_ANSWER: 1, Fault.DROP_REQUEST: 1}


@pytest.mark.timeout(300 * soak_scale())
async def test_a_storm_on_the_ends_of_claims_records_each_end_once(
    claims_with, claims_migrated, as_person, person, db
):
    """MarkSubmitted, MarkUncertain and RecordCheck through the same faults,
    resent after each error: every claim ends as its runner said the first
    time, with one history row per change, however often it was resent."""
    tally = StormTally("claims.MarkSubmitted+MarkUncertain+RecordCheck")
    to_database = await PostgresFaultProxy.for_url(claims_migrated)
    address, direct, vault = await claims_with(
        database_url=to_database.url_for(claims_migrated), db_call_timeout_s=5.0
    )
    to_claims = await GrpcFaultProxy.for_address(address)
    channel = fast_reconnect_channel(to_claims.address)
    proxied = claims_pb2_grpc.ClaimsServiceStub(channel)
    item = await put_login(vault, as_person)
    holder = await live_holder(direct, as_person)
    renewing = asyncio.ensure_future(renew_forever(holder, direct, as_person, tally))
    rng = random.Random(20261203)
    faults = every_fault(to_database, to_claims)
    intended: dict[str, tuple[int, int]] = {}

    async def answered(call, what: str):
        try:
            return await until_answered(call, tally)
        except grpc.aio.AioRpcError as error:
            tally.wrong_answers.append(f"{what}: {error.code().name} {error.details()}")
            return None

    async def one_operation() -> None:
        request = claim_request(item, holder)
        granted = await answered(
            lambda: direct.Claim(request, metadata=as_person, timeout=10), "Claim"
        )
        if granted is None:
            return
        if not granted.granted:  # a grant lost to a cut link: settled as a runner does
            if granted.claim.state == pb.CLAIM_STATE_RUNNING:
                settle = pb.MarkUncertainRequest(
                    claim_id=granted.claim.id, holder=holder, reason=LOST_GRANT
                )
                await answered(lambda: direct.MarkUncertain(settle, metadata=as_person), "Settle")
            return
        claim_id = granted.claim.id
        submitted = rng.random() < 0.5
        check = rng.choice([pb.CHECK_RESULT_WORKED, pb.CHECK_RESULT_DID_NOT_WORK])
        arm_at_random(rng, faults, delay_s=0.2, touching=b"UPDATE claims.claims")
        if submitted:
            intended[claim_id] = (pb.CLAIM_STATE_SUBMITTED, check)
            mark = pb.MarkSubmittedRequest(claim_id=claim_id, holder=holder)
            ended = await answered(
                lambda: proxied.MarkSubmitted(mark, metadata=as_person, timeout=10), "Mark"
            )
            arm_at_random(rng, faults, delay_s=0.2, touching=b"UPDATE claims.claims")
            record = pb.RecordCheckRequest(claim_id=claim_id, check=check)
            checked = await answered(
                lambda: proxied.RecordCheck(record, metadata=as_person, timeout=10), "Check"
            )
            replies = [ended, checked]
        else:
            intended[claim_id] = (pb.CLAIM_STATE_UNCERTAIN, pb.CHECK_RESULT_UNSPECIFIED)
            mark = pb.MarkUncertainRequest(claim_id=claim_id, holder=holder, reason="cut off")
            replies = [
                await answered(
                    lambda: proxied.MarkUncertain(mark, metadata=as_person, timeout=10), "Mark"
                )
            ]
        for reply in replies:
            if reply is not None and reply.claim.state != intended[claim_id][0]:
                tally.wrong_answers.append(f"{claim_id}: answered {reply.claim.state}")

    target = 3 * INJECTIONS_PER_CALL * soak_scale()
    proxies = (to_database, to_claims)
    try:
        elapsed = await run_storm(target, CALLERS, proxies, one_operation, tally)
    finally:
        renewing.cancel()
        await channel.close()
        await to_claims.close()
        await to_database.close()

    found = await db.execute(
        "SELECT c.id::text, c.state, c.check_result, count(e.*)"
        " FROM claims.claims c JOIN claims.claim_events e ON e.claim_id = c.id"
        " WHERE c.owner = %s GROUP BY c.id",
        (person,),
    )
    rows = {
        claim_id: (state, check, events)
        for claim_id, state, check, events in await found.fetchall()
    }
    states = {pb.CLAIM_STATE_SUBMITTED: "submitted", pb.CLAIM_STATE_UNCERTAIN: "uncertain"}
    checks = {pb.CHECK_RESULT_WORKED: "worked", pb.CHECK_RESULT_DID_NOT_WORK: "did_not_work"}
    for claim_id, (state, check) in intended.items():
        got_state, got_check, events = rows[claim_id]
        assert got_state == states[state], f"{claim_id} ended {got_state}"
        # RUNNING, its end, and (submitted) its check: one row each, never two.
        if state == pb.CLAIM_STATE_SUBMITTED:
            assert (got_check, events) == (checks[check], 3), rows[claim_id]
        else:
            assert (got_check, events) == (None, 2), rows[claim_id]
    tally.uncertain = sum(1 for state, _, _ in rows.values() if state == "uncertain")
    tally.running_left = sum(1 for state, _, _ in rows.values() if state == "running")
    tally.report(*proxies)
    print(f"[{tally.name}] {elapsed:.1f} s, ended={len(intended)}")
    assert tally.wrong_answers == []
    assert tally.running_left == 0
    assert injected_total(*proxies) >= target
