"""A code from a saved login's TOTP seed is given once per time step and
account (RFC 6238, 5.2: a site refuses a code used before, whoever typed
it). An account is its site and username, and its seed: the same account
saved twice, or by two people, or its seed saved under another name, shares
one ledger. A claim takes the current step or the next one, in its own
transaction; with both taken it is refused, writing nothing. The grant
carries the code and when it becomes valid, never the seed."""

import asyncio
import time
import uuid

import grpc
import pyotp
import pytest

from nod.claims.v1 import claims_pb2 as pb
from nodkit import faults
from nodkit.client import call_metadata
from nodtest.claims import ORIGIN
from nodtest.rpc import expect_error

from .support import claim_request, live_holder

PERIOD_S = 30
NO_STEP = "NO_CODE_STEP_FREE"


def fresh_account() -> tuple[str, str]:
    """A seed and username no other test uses: the ledger is shared by all."""
    return pyotp.random_base32(32), f"ada-{uuid.uuid4().hex[:8]}@example.com"


async def login_with_seed(
    vault_stub, meta, seed, username, *, origin=ORIGIN, label="shop"
) -> pb.VaultItem:
    fields = {"username": username, "password": "pw-1234567", "totp_seed": seed}
    item = pb.VaultItem(kind=pb.ENTRY_KIND_SAVED_LOGIN, label=label, origin=origin, fields=fields)
    return (await vault_stub.PutItem(pb.PutItemRequest(item=item), metadata=meta)).item


def with_code(request: pb.ClaimRequest) -> pb.ClaimRequest:
    request.totp_code = True
    return request


def code_request(item, holder, **kwargs) -> pb.ClaimRequest:
    return with_code(claim_request(item, holder, origin=item.origin, **kwargs))


def step_of(grant: pb.ClaimResponse) -> int:
    return int(grant.secret_fields["totp_not_before"]) // PERIOD_S


async def well_inside_a_step(margin_s: float = 4.0) -> int:
    """The current step, with at least `margin_s` of it left: a test that
    counts steps must not straddle two."""
    if PERIOD_S - time.time() % PERIOD_S < margin_s:
        await asyncio.sleep(PERIOD_S - time.time() % PERIOD_S + 0.05)
    return int(time.time() // PERIOD_S)


async def until_step(step: int) -> None:
    await asyncio.sleep(max(0.0, step * PERIOD_S - time.time()) + 0.05)


async def find(claims_stub, meta, request: pb.ClaimRequest) -> pb.FindClaimResponse:
    return await claims_stub.FindClaim(
        pb.FindClaimRequest(
            operation_id=request.operation_id,
            kind=request.kind,
            item_id=request.item_id,
            task_id=request.task_id,
        ),
        metadata=meta,
    )


async def steps_of_claims(db, claim_ids) -> list[tuple[int, str]]:
    """(step, claim id) of every account key row these claims took."""
    rows = await db.execute(
        "SELECT step, claim_id::text FROM claims.totp_account_steps"
        " WHERE claim_id = ANY(%s::uuid[]) ORDER BY step",
        (list(claim_ids),),
    )
    return await rows.fetchall()


async def stray_steps(db, since_step: int) -> int:
    """Step rows from `since_step` on that belong to no claim: a step taken
    for a claim that was never written."""
    row = await (
        await db.execute(
            "SELECT (SELECT count(*) FROM claims.totp_account_steps s WHERE s.step >= %(since)s"
            "         AND NOT EXISTS (SELECT 1 FROM claims.claims c WHERE c.id = s.claim_id))"
            "     + (SELECT count(*) FROM claims.totp_steps s WHERE s.step >= %(since)s"
            "         AND NOT EXISTS (SELECT 1 FROM claims.claims c WHERE c.id = s.claim_id))",
            {"since": since_step},
        )
    ).fetchone()
    return row[0]


async def test_each_time_step_is_given_once_and_the_seed_never_leaves(
    claims_stub, vault_stub, as_person
):
    seed, username = fresh_account()
    item = await login_with_seed(vault_stub, as_person, seed, username)
    holder = await live_holder(claims_stub, as_person)
    now_step = await well_inside_a_step()
    first, second = [
        await claims_stub.Claim(code_request(item, holder), metadata=as_person) for _ in range(2)
    ]

    assert first.granted and second.granted
    for grant in (first, second):
        assert "totp_seed" not in grant.secret_fields
        assert set(grant.secret_fields) >= {"username", "password", "totp_code"}
    assert [step_of(first), step_of(second)] == [now_step, now_step + 1]
    totp = pyotp.TOTP(seed)
    assert first.secret_fields["totp_code"] == totp.at(now_step * PERIOD_S)
    assert second.secret_fields["totp_code"] == totp.at((now_step + 1) * PERIOD_S)


async def test_a_login_claimed_without_a_code_never_gets_its_seed(
    claims_stub, vault_stub, as_person
):
    seed, username = fresh_account()
    item = await login_with_seed(vault_stub, as_person, seed, username)
    holder = await live_holder(claims_stub, as_person)
    reply = await claims_stub.Claim(claim_request(item, holder), metadata=as_person)
    assert reply.granted and set(reply.secret_fields) == {"username", "password"}


async def test_one_account_saved_twice_or_by_two_people_never_gets_one_code_twice(
    claims_stub, vault_stub, as_person, service_token, db
):
    seed, username = fresh_account()
    other_person = call_metadata(service_token, f"person-{uuid.uuid4().hex[:12]}")
    items = [
        (as_person, await login_with_seed(vault_stub, as_person, seed, username, label="work")),
        (as_person, await login_with_seed(vault_stub, as_person, seed, username, label="home")),
        (other_person, await login_with_seed(vault_stub, other_person, seed, username)),
    ]
    now_step = await well_inside_a_step()
    grants = []
    for meta, item in items[:2]:
        holder = await live_holder(claims_stub, meta)
        grants.append(await claims_stub.Claim(code_request(item, holder), metadata=meta))

    assert [step_of(g) for g in grants] == [now_step, now_step + 1]
    assert grants[0].secret_fields["totp_code"] != grants[1].secret_fields["totp_code"]
    # The other person's copy of the account finds both steps of it taken.
    meta, item = items[2]
    refused = code_request(item, await live_holder(claims_stub, meta))
    error = await expect_error(
        claims_stub.Claim(refused, metadata=meta),
        grpc.StatusCode.FAILED_PRECONDITION,
        reason=NO_STEP,
    )
    assert "a one-time code for this account was just used; try again in" in error.message
    assert not (await find(claims_stub, meta, refused)).found
    # Keys only: neither the seed nor the username is in the ledger.
    rows = await (
        await db.execute(
            "SELECT account_key FROM claims.totp_account_steps WHERE claim_id = ANY(%s::uuid[])",
            ([g.claim.id for g in grants],),
        )
    ).fetchall()
    assert rows and not any(seed in key or username in key for (key,) in rows)


async def test_the_same_seed_under_another_name_or_site_is_the_same_account(
    claims_stub, vault_stub, as_person, service_token
):
    seed, username = fresh_account()
    spelled_otherwise = " ".join(seed[i : i + 4] for i in range(0, len(seed), 4)).lower()
    other_person = call_metadata(service_token, f"person-{uuid.uuid4().hex[:12]}")
    mine = await login_with_seed(vault_stub, as_person, seed, username)
    theirs = await login_with_seed(
        vault_stub,
        other_person,
        spelled_otherwise,
        "grace@example.com",
        origin="https://sso.example",
    )
    now_step = await well_inside_a_step()
    first = await claims_stub.Claim(
        code_request(mine, await live_holder(claims_stub, as_person)), metadata=as_person
    )
    second = await claims_stub.Claim(
        code_request(theirs, await live_holder(claims_stub, other_person)), metadata=other_person
    )
    assert [step_of(first), step_of(second)] == [now_step, now_step + 1]
    assert first.secret_fields["totp_code"] != second.secret_fields["totp_code"]


async def test_racing_claims_of_one_account_take_the_current_and_next_steps_and_no_more(
    claims_stub, vault_stub, as_person, service_token, db
):
    seed, username = fresh_account()
    other_person = call_metadata(service_token, f"person-{uuid.uuid4().hex[:12]}")
    people = [as_person, other_person]
    items = [await login_with_seed(vault_stub, meta, seed, username) for meta in people]
    holders = [await live_holder(claims_stub, meta) for meta in people]
    requests = [(people[n % 2], code_request(items[n % 2], holders[n % 2])) for n in range(8)]
    now_step = await well_inside_a_step()

    replies = await asyncio.gather(
        *(claims_stub.Claim(request, metadata=meta) for meta, request in requests),
        return_exceptions=True,
    )

    granted = [r for r in replies if isinstance(r, pb.ClaimResponse)]
    refused = [r for r in replies if isinstance(r, grpc.aio.AioRpcError)]
    assert len(granted) == 2 and len(refused) == 6
    assert all(g.granted for g in granted)
    assert sorted(step_of(g) for g in granted) == [now_step, now_step + 1]
    assert len({g.secret_fields["totp_code"] for g in granted}) == 2
    for error in refused:
        assert error.code() == grpc.StatusCode.FAILED_PRECONDITION
        assert NO_STEP in str(error.trailing_metadata())
    # The refused ones wrote no claim (so none is UNCERTAIN) and took no step.
    granted_ops = {g.claim.operation_id for g in granted}
    for meta, request in requests:
        found = await find(claims_stub, meta, request)
        assert found.found == (request.operation_id in granted_ops)
        assert not found.found or found.claim.state == pb.CLAIM_STATE_RUNNING
    taken = await steps_of_claims(db, [g.claim.id for g in granted])
    assert {step for step, _ in taken} == {now_step, now_step + 1}
    assert await stray_steps(db, now_step) == 0


async def test_a_resend_of_a_granted_claim_takes_no_step(claims_stub, vault_stub, as_person, db):
    seed, username = fresh_account()
    item = await login_with_seed(vault_stub, as_person, seed, username)
    holder = await live_holder(claims_stub, as_person)
    now_step = await well_inside_a_step()
    request = code_request(item, holder)
    first = await claims_stub.Claim(request, metadata=as_person)
    resent = await asyncio.gather(
        *(claims_stub.Claim(request, metadata=as_person) for _ in range(4))
    )

    assert first.granted and step_of(first) == now_step
    assert all(not r.granted and r.claim.id == first.claim.id for r in resent)
    assert all(not r.secret_fields for r in resent)
    taken_before = await steps_of_claims(db, [first.claim.id])
    # The next step is still free: a new operation is given it.
    after = await claims_stub.Claim(code_request(item, holder), metadata=as_person)
    assert after.granted and step_of(after) == now_step + 1
    assert await steps_of_claims(db, [first.claim.id]) == taken_before


async def test_a_code_claim_hung_before_its_commit_takes_no_step(
    claims_stub, vault_stub, as_person, log_tee
):
    """The step is part of the claim's transaction: rolled back at the
    caller's deadline, it takes nothing, and the resend is given the
    current step."""
    seed, username = fresh_account()
    item = await login_with_seed(vault_stub, as_person, seed, username)
    holder = await live_holder(claims_stub, as_person)
    request = code_request(item, holder)
    now_step = await well_inside_a_step(margin_s=12)
    faults.arm("claims.claim_before_commit=hang")
    try:
        await expect_error(
            claims_stub.Claim(request, metadata=as_person, timeout=1.5),
            grpc.StatusCode.DEADLINE_EXCEEDED,
        )
        assert any("faults.fired" in line for line in log_tee.lines)
    finally:
        faults.arm("")
    granted = await claims_stub.Claim(request, metadata=as_person, timeout=8)
    assert granted.granted and step_of(granted) == now_step


async def test_a_refused_claim_takes_nothing_and_its_operation_can_be_claimed_once_a_step_is_free(
    claims_stub, vault_stub, as_person, db
):
    """The old ledger booked a step further ahead for each refused claim,
    locking the login out for minutes; this one books nothing."""
    seed, username = fresh_account()
    item = await login_with_seed(vault_stub, as_person, seed, username)
    holder = await live_holder(claims_stub, as_person)
    now_step = await well_inside_a_step()
    for _ in range(2):
        assert (await claims_stub.Claim(code_request(item, holder), metadata=as_person)).granted
    refused = code_request(item, holder)
    for _ in range(3):
        await expect_error(
            claims_stub.Claim(refused, metadata=as_person),
            grpc.StatusCode.FAILED_PRECONDITION,
            reason=NO_STEP,
        )
    assert not (await find(claims_stub, as_person, refused)).found
    assert await stray_steps(db, now_step) == 0

    # Once the next step begins, the step after it is free: the same
    # operation is granted it (it was never written, so it is not a resend).
    await until_step(now_step + 1)
    granted = await claims_stub.Claim(refused, metadata=as_person)
    assert granted.granted and step_of(granted) == now_step + 2
    assert granted.secret_fields["totp_code"] == pyotp.TOTP(seed).at((now_step + 2) * PERIOD_S)


async def test_a_step_a_pod_of_the_release_before_gave_stays_given(
    claims_stub, vault_stub, as_person, person, db
):
    """During a rollout, pods of the release before keep giving codes and
    record them only per saved login: those steps are honoured here too."""
    seed, username = fresh_account()
    item = await login_with_seed(vault_stub, as_person, seed, username)
    holder = await live_holder(claims_stub, as_person)
    # The old pod's grant: its claim, and the step it recorded for the login.
    old = await claims_stub.Claim(claim_request(item, holder), metadata=as_person)
    now_step = await well_inside_a_step()
    await db.execute(
        "INSERT INTO claims.totp_steps (owner, item_id, step, claim_id) VALUES (%s, %s, %s, %s)",
        (person, item.id, now_step, old.claim.id),
    )
    granted = await claims_stub.Claim(code_request(item, holder), metadata=as_person)
    assert granted.granted and step_of(granted) == now_step + 1
    await expect_error(
        claims_stub.Claim(code_request(item, holder), metadata=as_person),
        grpc.StatusCode.FAILED_PRECONDITION,
        reason=NO_STEP,
    )


async def test_a_login_without_a_seed_asked_for_a_code_is_granted_without_one(
    claims_stub, vault_stub, as_person
):
    item = pb.VaultItem(
        kind=pb.ENTRY_KIND_SAVED_LOGIN,
        origin=ORIGIN,
        fields={"username": "ada@example.com", "password": "pw-1234567"},
    )
    item = (await vault_stub.PutItem(pb.PutItemRequest(item=item), metadata=as_person)).item
    holder = await live_holder(claims_stub, as_person)
    reply = await claims_stub.Claim(code_request(item, holder), metadata=as_person)
    # The runner finds no code to type and ends the claim itself.
    assert reply.granted and set(reply.secret_fields) == {"username", "password"}


@pytest.mark.parametrize("kind", [pb.ENTRY_KIND_CARD])
async def test_only_a_saved_login_asks_for_a_code(claims_stub, vault_stub, as_person, kind):
    seed, username = fresh_account()
    item = await login_with_seed(vault_stub, as_person, seed, username)
    holder = await live_holder(claims_stub, as_person)
    await expect_error(
        claims_stub.Claim(with_code(claim_request(item, holder, kind=kind)), metadata=as_person),
        grpc.StatusCode.INVALID_ARGUMENT,
        field="totp_code",
    )


def test_a_sign_in_tries_the_current_step_then_the_next_and_waits_for_no_other():
    from nod_claims.domain import totp

    assert list(totp.steps_to_try(100)) == [100, 101]
    refusal = totp.no_step_free(100 * PERIOD_S + 7.2, 101)
    assert refusal.reason == NO_STEP and refusal.metadata["retry_after_s"] == "23"
    assert refusal.message.endswith("try again in 23 seconds")
    assert totp.no_step_free(101 * PERIOD_S - 0.2, 101).message.endswith("in 1 second")
    grant = totp.grant(pyotp.random_base32(32), 101)
    assert (grant.step, grant.not_before) == (101, 101 * PERIOD_S)


def test_an_account_is_one_however_it_was_spelled():
    from nod_claims.domain import totp

    seed = pyotp.random_base32(32)
    spaced = " ".join(seed[i : i + 4] for i in range(0, len(seed), 4)).lower()
    assert totp.account_of(ORIGIN, " Ada@Example.com", spaced) == totp.account_of(
        ORIGIN, "ada@example.com", seed + "===="
    )
    assert totp.account_of(ORIGIN, "ada", seed) != totp.account_of(ORIGIN, "grace", seed)
    with pytest.raises(Exception, match="can't make codes"):
        totp.account_of(ORIGIN, "ada", "not base32 !!")
