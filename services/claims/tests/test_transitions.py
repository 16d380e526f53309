"""G3: RUNNING -> SUBMITTED | UNCERTAIN, both final, only by the holder; the
check is recorded beside SUBMITTED; every change lands in the history."""

import grpc
import psycopg
import pytest

from nod.claims.v1 import claims_pb2 as pb
from nodtest.claims import bind_card, op_id, put_card, put_login
from nodtest.rpc import expect_error

from .support import claim_request, live_holder

FAILED = grpc.StatusCode.FAILED_PRECONDITION


@pytest.fixture
async def running(claims_stub, vault_stub, as_person):
    """A RUNNING claim and its holder."""
    item = await put_login(vault_stub, as_person)
    holder = await live_holder(claims_stub, as_person)
    reply = await claims_stub.Claim(claim_request(item, holder), metadata=as_person)
    assert reply.granted
    return reply.claim, holder, item


async def test_a_grant_answers_with_the_claim_as_recorded(claims_stub, vault_stub, as_person):
    """The grant's claim is built from the request and the new row's id and
    time (the batch statement returns no more): it must be, field for field,
    the claim the service keeps."""
    holder = await live_holder(claims_stub, as_person)
    for item in (await put_login(vault_stub, as_person), await put_card(vault_stub, as_person)):
        request = claim_request(item, holder)
        if item.kind == pb.ENTRY_KIND_CARD:
            await bind_card(
                claims_stub, as_person, operation_id=request.operation_id, item_id=item.id
            )
        reply = await claims_stub.Claim(request, metadata=as_person)
        assert reply.granted
        got = await claims_stub.GetClaim(
            pb.GetClaimRequest(claim_id=reply.claim.id), metadata=as_person
        )
        assert reply.claim == got.claim
        assert reply.claim.state == pb.CLAIM_STATE_RUNNING
        assert reply.claim.created_at.seconds > 0


async def submit(stub, meta, claim, holder):
    request = pb.MarkSubmittedRequest(claim_id=claim.id, holder=holder)
    return (await stub.MarkSubmitted(request, metadata=meta)).claim


async def mark_uncertain(stub, meta, claim, holder, reason="cut off"):
    request = pb.MarkUncertainRequest(claim_id=claim.id, holder=holder, reason=reason)
    return (await stub.MarkUncertain(request, metadata=meta)).claim


async def test_holder_submits_and_a_repeat_answers_the_current_state(
    claims_stub, as_person, running
):
    claim, holder, _ = running
    submitted = await submit(claims_stub, as_person, claim, holder)
    again = await submit(claims_stub, as_person, claim, holder)
    assert submitted.state == again.state == pb.CLAIM_STATE_SUBMITTED
    assert again.updated_at == submitted.updated_at


async def test_holder_marks_uncertain_with_a_reason(claims_stub, as_person, running):
    claim, holder, _ = running
    uncertain = await mark_uncertain(claims_stub, as_person, claim, holder, "page closed")
    again = await mark_uncertain(claims_stub, as_person, claim, holder, "page closed")
    assert uncertain.state == again.state == pb.CLAIM_STATE_UNCERTAIN
    assert uncertain.reason == "page closed"


async def test_a_non_holder_can_not_submit_even_after_the_holder_did(
    claims_stub, as_person, running
):
    claim, holder, _ = running
    await expect_error(
        claims_stub.MarkSubmitted(
            pb.MarkSubmittedRequest(claim_id=claim.id, holder="someone-else"), metadata=as_person
        ),
        FAILED,
        reason="NOT_HOLDER",
    )
    await submit(claims_stub, as_person, claim, holder)
    await expect_error(
        claims_stub.MarkSubmitted(
            pb.MarkSubmittedRequest(claim_id=claim.id, holder="someone-else"), metadata=as_person
        ),
        FAILED,
        reason="NOT_HOLDER",
    )


async def test_final_states_never_change(claims_stub, vault_stub, as_person):
    item = await put_login(vault_stub, as_person)
    holder = await live_holder(claims_stub, as_person)
    submitted = (await claims_stub.Claim(claim_request(item, holder), metadata=as_person)).claim
    uncertain = (await claims_stub.Claim(claim_request(item, holder), metadata=as_person)).claim
    await submit(claims_stub, as_person, submitted, holder)
    await mark_uncertain(claims_stub, as_person, uncertain, holder)

    await expect_error(
        claims_stub.MarkUncertain(
            pb.MarkUncertainRequest(claim_id=submitted.id, holder=holder), metadata=as_person
        ),
        FAILED,
        reason="CLAIM_FINAL",
    )
    await expect_error(
        claims_stub.MarkSubmitted(
            pb.MarkSubmittedRequest(claim_id=uncertain.id, holder=holder), metadata=as_person
        ),
        FAILED,
        reason="CLAIM_FINAL",
    )
    for claim, state in (
        (submitted, pb.CLAIM_STATE_SUBMITTED),
        (uncertain, pb.CLAIM_STATE_UNCERTAIN),
    ):
        got = await claims_stub.GetClaim(pb.GetClaimRequest(claim_id=claim.id), metadata=as_person)
        assert got.claim.state == state


async def test_a_claim_can_not_return_to_running(claims_stub, as_person, running, db):
    claim, holder, item = running
    await mark_uncertain(claims_stub, as_person, claim, holder)
    again = await claims_stub.Claim(
        claim_request(item, holder, operation_id=claim.operation_id), metadata=as_person
    )
    assert not again.granted and again.claim.state == pb.CLAIM_STATE_UNCERTAIN
    # Not even a direct write gets past the database.
    with pytest.raises(psycopg.errors.RaiseException):
        await db.execute("UPDATE claims.claims SET state = 'running' WHERE id = %s", (claim.id,))
    row = await (
        await db.execute("SELECT state FROM claims.claims WHERE id = %s", (claim.id,))
    ).fetchone()
    assert row == ("uncertain",)


async def test_check_is_recorded_once_beside_submitted(claims_stub, as_person, running):
    claim, holder, _ = running
    record = pb.RecordCheckRequest(claim_id=claim.id, check=pb.CHECK_RESULT_WORKED)
    await expect_error(
        claims_stub.RecordCheck(record, metadata=as_person), FAILED, reason="NOT_SUBMITTED"
    )
    await submit(claims_stub, as_person, claim, holder)
    checked = (await claims_stub.RecordCheck(record, metadata=as_person)).claim
    assert checked.state == pb.CLAIM_STATE_SUBMITTED and checked.check == pb.CHECK_RESULT_WORKED
    assert (await claims_stub.RecordCheck(record, metadata=as_person)).claim.check == (
        pb.CHECK_RESULT_WORKED
    )
    await expect_error(
        claims_stub.RecordCheck(
            pb.RecordCheckRequest(claim_id=claim.id, check=pb.CHECK_RESULT_DID_NOT_WORK),
            metadata=as_person,
        ),
        FAILED,
        reason="CHECK_ALREADY_RECORDED",
    )


async def test_no_check_on_an_uncertain_claim(claims_stub, as_person, running):
    claim, holder, _ = running
    await mark_uncertain(claims_stub, as_person, claim, holder)
    await expect_error(
        claims_stub.RecordCheck(
            pb.RecordCheckRequest(claim_id=claim.id, check=pb.CHECK_RESULT_UNCLEAR),
            metadata=as_person,
        ),
        FAILED,
        reason="NOT_SUBMITTED",
    )


async def test_history_records_who_when_from_to_and_why(claims_stub, as_person, running):
    claim, holder, _ = running
    await submit(claims_stub, as_person, claim, holder)
    await claims_stub.RecordCheck(
        pb.RecordCheckRequest(claim_id=claim.id, check=pb.CHECK_RESULT_DID_NOT_WORK),
        metadata=as_person,
    )
    events = (
        await claims_stub.ListClaimEvents(
            pb.ListClaimEventsRequest(claim_id=claim.id), metadata=as_person
        )
    ).events
    path = [(e.from_state, e.to_state, e.actor) for e in events]
    assert path == [
        (pb.CLAIM_STATE_UNSPECIFIED, pb.CLAIM_STATE_RUNNING, holder),
        (pb.CLAIM_STATE_RUNNING, pb.CLAIM_STATE_SUBMITTED, holder),
        (pb.CLAIM_STATE_SUBMITTED, pb.CLAIM_STATE_SUBMITTED, "check"),
    ]
    assert events[2].reason == "check: did_not_work"
    assert all(e.at.seconds > 0 for e in events)


async def test_the_same_operation_id_for_something_else_is_refused(
    claims_stub, vault_stub, as_person, running, db, person
):
    claim, holder, _ = running
    other_item = await put_login(vault_stub, as_person)
    await expect_error(
        claims_stub.Claim(
            claim_request(other_item, holder, operation_id=claim.operation_id), metadata=as_person
        ),
        grpc.StatusCode.ALREADY_EXISTS,
        reason="OPERATION_ID_REUSED",
    )
    await expect_error(
        claims_stub.Claim(
            claim_request(other_item, holder, operation_id=claim.operation_id, task_id="task-2"),
            metadata=as_person,
        ),
        grpc.StatusCode.ALREADY_EXISTS,
    )
    count = await (
        await db.execute("SELECT count(*) FROM claims.claims WHERE owner = %s", (person,))
    ).fetchone()
    assert count == (1,)


async def test_a_login_is_only_released_for_its_own_site(
    claims_stub, vault_stub, as_person, db, person
):
    item = await put_login(vault_stub, as_person, origin="https://bank.example")
    holder = await live_holder(claims_stub, as_person)
    await expect_error(
        claims_stub.Claim(
            claim_request(item, holder, origin="https://bank.example.evil.test"), metadata=as_person
        ),
        FAILED,
        reason="PAGE_NOT_BOUND",
    )
    granted = await claims_stub.Claim(
        claim_request(item, holder, origin="HTTPS://Bank.Example:443"), metadata=as_person
    )
    assert granted.granted and granted.claim.origin == "https://bank.example"
    count = await (
        await db.execute("SELECT count(*) FROM claims.claims WHERE owner = %s", (person,))
    ).fetchone()
    assert count == (1,)


async def test_a_holder_without_a_live_lease_gets_nothing(
    claims_stub, vault_stub, as_person, db, person
):
    item = await put_login(vault_stub, as_person)
    await expect_error(
        claims_stub.Claim(claim_request(item, "never-renewed-runner"), metadata=as_person),
        FAILED,
        reason="HOLDER_LEASE_EXPIRED",
    )
    count = await (
        await db.execute("SELECT count(*) FROM claims.claims WHERE owner = %s", (person,))
    ).fetchone()
    assert count == (0,)


async def test_operation_ids_are_per_person(claims_stub, vault_stub, as_person, service_token):
    from nodkit.client import call_metadata

    someone_else = call_metadata(service_token, "person-someone-else-ops")
    mine = await put_login(vault_stub, as_person)
    theirs = await put_login(vault_stub, someone_else)
    holder = await live_holder(claims_stub, as_person)
    operation_id = op_id()
    a = await claims_stub.Claim(
        claim_request(mine, holder, operation_id=operation_id), metadata=as_person
    )
    b = await claims_stub.Claim(
        claim_request(theirs, holder, operation_id=operation_id), metadata=someone_else
    )
    assert a.granted and b.granted and a.claim.id != b.claim.id
