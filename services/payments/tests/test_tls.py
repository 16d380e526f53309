"""Payments calls the claims service over mutual TLS, its certificate its
only credential: a claims process that takes no token at all checks a card
entry's claim for payments, because payments' certificate names it."""

import uuid

from nod.claims.v1 import claims_pb2_grpc
from nod.payments.v1 import payments_pb2 as pb
from nod.payments.v1 import payments_pb2_grpc
from nodkit.client import call_metadata, open_channel
from nodtest.processes import Peer

from .conftest import start_payments_server
from .support import CardClaims, running_payment


async def test_payments_asks_claims_with_its_certificate_alone(
    payments_migrated, service_env, service_token, tls_authority, person, tmp_path, log_tee
):
    claims_env = {k: v for k, v in service_env.items() if k != "NOD_SERVICE_TOKEN"}
    claims_env |= tls_authority.issue("claims").env(require_client_cert=True, accept_tokens=False)
    claims = await Peer("claims", claims_env, tmp_path / "claims.log").start()
    payments = None
    channels = []
    try:
        # Payments serves over TLS too, taking tokens from its own callers.
        payments = await start_payments_server(
            payments_migrated,
            service_token,
            instance_id=f"payments-tls-{uuid.uuid4().hex[:8]}",
            claims_addr=claims.address,
            **tls_authority.issue("payments").settings(require_client_cert=False),
        )

        def dial(address: str, as_service: str, peer: str):
            channel = open_channel(address, tls=tls_authority.issue(as_service).tls(), peer=peer)
            channels.append(channel)
            return channel

        card_claims = CardClaims(
            claims_pb2_grpc.ClaimsServiceStub(dial(claims.address, "browser", "claims")),
            claims_pb2_grpc.VaultServiceStub(dial(claims.address, "gateway", "claims")),
        )
        stub = payments_pb2_grpc.PaymentsServiceStub(dial(payments.address, "tasks", "payments"))
        by_certificate, by_token = call_metadata(None, person), call_metadata(service_token, person)

        card = await card_claims.card(by_certificate)
        payment = await running_payment(stub, by_token, card_item_id=card)
        claim = await card_claims.claim(by_certificate, payment)
        request = pb.RecordSubmittedRequest(payment_id=payment.id, claim_id=claim.id)
        reply = await stub.RecordSubmitted(request, metadata=by_token)
        assert reply.payment.state == pb.PAYMENT_STATE_SUBMITTED
    finally:
        for channel in channels:
            await channel.close()
        if payments is not None:
            await payments.stop()
        claims.stop()
