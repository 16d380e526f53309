"""The claim a card entry's end names is checked with the claims service
(G8): the person's own, a card claim under this payment's card operation id
for the card they said yes to, and for RecordSubmitted a submitted one.
Anything else is refused and the payment is left as it was; so is every end
when the claims service can't be asked."""

import secrets
import uuid

import grpc
import pytest
from pydantic import SecretStr

from nod.claims.v1 import claims_pb2 as claims_pb
from nod.claims.v1 import claims_pb2_grpc
from nod.payments.v1 import payments_pb2 as pb
from nodkit.client import call_metadata, open_channel
from nodtest.claims import put_login
from nodtest.processes import Peer, free_port
from nodtest.rpc import expect_error

from .support import CardClaims, create_payment, get_payment, running_payment, transitions

NOT_FOUND = (grpc.StatusCode.NOT_FOUND, "CLAIM_NOT_FOUND")
MISMATCH = (grpc.StatusCode.FAILED_PRECONDITION, "CLAIM_MISMATCH")


async def paying(stub, claims, meta) -> pb.Payment:
    """A payment whose card entry started, with the person's own saved card."""
    return await running_payment(stub, meta, card_item_id=await claims.card(meta))


async def made_up(stub, claims, meta, payment, service_token) -> str:
    return str(uuid.uuid4())


async def someone_elses(stub, claims, meta, payment, service_token) -> str:
    """Their own submitted card claim for their own payment."""
    stranger = call_metadata(service_token, f"person-{uuid.uuid4().hex[:12]}")
    theirs = await paying(stub, claims, stranger)
    return (await claims.claim(stranger, theirs)).id


async def for_another_payment(stub, claims, meta, payment, service_token) -> str:
    other = await paying(stub, claims, meta)
    return (await claims.claim(meta, other)).id


async def of_another_kind(stub, claims, meta, payment, service_token) -> str:
    """A saved login claimed under this payment's card operation id."""
    login = await put_login(claims.vault_stub, meta, origin=payment.merchant_origin)
    claim = await claims.claim(
        meta, payment, kind=claims_pb.ENTRY_KIND_SAVED_LOGIN, item_id=login.id
    )
    return claim.id


WRONG_CLAIMS = {
    "made up": (made_up, NOT_FOUND),
    "someone else's": (someone_elses, NOT_FOUND),
    "for another payment": (for_another_payment, MISMATCH),
    "of another kind": (of_another_kind, MISMATCH),
}


def record(stub, meta, method: str, payment_id: str, claim_id: str):
    if method == "RecordSubmitted":
        request = pb.RecordSubmittedRequest(payment_id=payment_id, claim_id=claim_id)
        return stub.RecordSubmitted(request, metadata=meta)
    request = pb.RecordUncertainRequest(payment_id=payment_id, claim_id=claim_id, reason="cut off")
    return stub.RecordUncertain(request, metadata=meta)


@pytest.mark.parametrize("method", ["RecordSubmitted", "RecordUncertain"])
@pytest.mark.parametrize("wrong", list(WRONG_CLAIMS))
async def test_a_claim_that_is_not_this_payments_card_entry_is_refused(
    payments_stub, payments_engine, card_claims, as_person, service_token, method, wrong
):
    payment = await paying(payments_stub, card_claims, as_person)
    make, (code, reason) = WRONG_CLAIMS[wrong]
    claim_id = await make(payments_stub, card_claims, as_person, payment, service_token)
    history = await transitions(payments_engine, payment.id)

    error = await expect_error(
        record(payments_stub, as_person, method, payment.id, claim_id), code, reason=reason
    )
    assert error.metadata["payment_id"] == payment.id
    assert await get_payment(payments_stub, as_person, payment.id) == payment
    assert await transitions(payments_engine, payment.id) == history


async def test_submitted_needs_the_claim_submitted(
    payments_stub, payments_engine, card_claims, as_person
):
    payment = await paying(payments_stub, card_claims, as_person)
    running = await card_claims.claim(as_person, payment, submit=False)
    history = await transitions(payments_engine, payment.id)
    error = await expect_error(
        record(payments_stub, as_person, "RecordSubmitted", payment.id, running.id),
        grpc.StatusCode.FAILED_PRECONDITION,
        reason="CLAIM_NOT_SUBMITTED",
    )
    assert error.metadata["claim_state"] == "running"
    assert await get_payment(payments_stub, as_person, payment.id) == payment
    assert await transitions(payments_engine, payment.id) == history
    # That claim was cut off: the entry ends uncertain under it.
    reply = await record(payments_stub, as_person, "RecordUncertain", payment.id, running.id)
    assert (reply.payment.state, reply.payment.claim_id) == (pb.PAYMENT_STATE_UNCERTAIN, running.id)


async def test_this_payments_submitted_card_claim_is_recorded(
    payments_stub, card_claims, as_person
):
    payment = await paying(payments_stub, card_claims, as_person)
    claim = await card_claims.claim(as_person, payment)
    reply = await record(payments_stub, as_person, "RecordSubmitted", payment.id, claim.id)
    assert (reply.payment.state, reply.payment.claim_id) == (pb.PAYMENT_STATE_SUBMITTED, claim.id)
    # A resend is answered from the payment.
    again = await record(payments_stub, as_person, "RecordSubmitted", payment.id, claim.id)
    assert again.payment == reply.payment


async def test_without_an_answer_from_claims_nothing_is_recorded(
    payments_stub, payments_stub_with, payments_engine, card_claims, as_person, log_tee
):
    nobody = f"127.0.0.1:{free_port()}"
    stub = await payments_stub_with(claims_addr=nobody, claims_timeout_s=1.0)
    # Started (and bound) by an instance that reaches claims; ended by one that can't.
    card = await card_claims.card(as_person)
    payment = await running_payment(payments_stub, as_person, card_item_id=card)
    claim = await card_claims.claim(as_person, payment)
    history = await transitions(payments_engine, payment.id)
    for method in ("RecordSubmitted", "RecordUncertain"):
        await expect_error(
            record(stub, as_person, method, payment.id, claim.id),
            grpc.StatusCode.UNAVAILABLE,
            reason="CLAIMS_UNAVAILABLE",
        )
    assert await get_payment(stub, as_person, payment.id) == payment
    assert await transitions(payments_engine, payment.id) == history
    # The operator sees why.
    assert (
        '"status": "UNAVAILABLE"' in log_tee.text() and "claims.get_claim_failed" in log_tee.text()
    )
    # An uncertain end that names no claim needs no answer from claims.
    reply = await stub.RecordUncertain(
        pb.RecordUncertainRequest(payment_id=payment.id, reason="cut off"), metadata=as_person
    )
    assert reply.payment.state == pb.PAYMENT_STATE_UNCERTAIN


async def test_a_payment_that_has_not_started_asks_nobody(payments_stub_with, as_person):
    stub = await payments_stub_with(claims_addr=f"127.0.0.1:{free_port()}")
    payment = await create_payment(stub, as_person)
    await expect_error(
        record(stub, as_person, "RecordSubmitted", payment.id, str(uuid.uuid4())),
        grpc.StatusCode.FAILED_PRECONDITION,
        reason="NOT_CONFIRMED",
    )


async def test_payments_asks_claims_with_its_own_credential(
    payments_stub_with, service_env, as_person, person, tmp_path
):
    """A claims service that knows each caller by its own token only: the
    check passes with payments' token, and fails (changing nothing) with a
    token claims does not know."""
    tokens = {name: secrets.token_urlsafe(16) for name in ("payments", "browser", "gateway")}
    env = {k: v for k, v in service_env.items() if k != "NOD_SERVICE_TOKEN"}
    env["NOD_SERVICE_TOKENS"] = ",".join(f"{name}:{token}" for name, token in tokens.items())
    peer = await Peer("claims", env, tmp_path / "claims.log").start()
    try:
        channel = open_channel(peer.address)
        claims = CardClaims(
            claims_pb2_grpc.ClaimsServiceStub(channel), claims_pb2_grpc.VaultServiceStub(channel)
        )
        as_runner = call_metadata(SecretStr(tokens["browser"]), person)
        as_gateway = call_metadata(SecretStr(tokens["gateway"]), person)
        starter = await payments_stub_with(
            claims_addr=peer.address, service_tokens=f"payments:{tokens['payments']}"
        )
        for own_token, answer in ((tokens["payments"], None), ("not-known", "CLAIMS_UNAVAILABLE")):
            stub = await payments_stub_with(
                claims_addr=peer.address, service_tokens=f"payments:{own_token}"
            )
            card = await claims.card(as_gateway)
            # Only payments' own token binds the card entry when it starts.
            payment = await running_payment(starter, as_person, card_item_id=card)
            claim = await claims.claim(as_runner, payment)
            call = record(stub, as_person, "RecordSubmitted", payment.id, claim.id)
            if answer is None:
                assert (await call).payment.state == pb.PAYMENT_STATE_SUBMITTED
            else:
                await expect_error(call, grpc.StatusCode.UNAVAILABLE, reason=answer)
                assert await get_payment(stub, as_person, payment.id) == payment
        await channel.close()
    finally:
        peer.stop()
