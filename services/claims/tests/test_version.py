"""Which build answered is visible from outside: every reply's initial
metadata names the service's package and version and the API it serves,
refusals and health checks included (an operator's probe needs no token)."""

from importlib import metadata

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from nod.claims.v1 import claims_pb2 as pb

BUILD = f"nod-claims/{metadata.version('nod-claims')}"


def version_of(initial_metadata) -> tuple[str | None, str | None]:
    found = dict(initial_metadata or ())
    return found.get("x-nod-version"), found.get("x-nod-api")


async def test_a_reply_names_the_build_that_answered(vault_stub, as_person):
    call = vault_stub.ListItems(pb.ListItemsRequest(), metadata=as_person)
    await call
    assert version_of(await call.initial_metadata()) == (BUILD, "nod.claims.v1")


async def test_a_refusal_names_it_too(claims_stub, as_person, person):
    for call in (
        claims_stub.GetClaim(pb.GetClaimRequest(claim_id="no-such-claim"), metadata=as_person),
        claims_stub.GetClaim(pb.GetClaimRequest(claim_id="x"), metadata=(("x-nod-user", person),)),
    ):
        try:
            await call
        except grpc.aio.AioRpcError as error:
            assert version_of(error.initial_metadata()) == (BUILD, "nod.claims.v1")
        else:
            raise AssertionError("expected a refusal")


async def test_a_health_check_names_it(claims_channel):
    call = health_pb2_grpc.HealthStub(claims_channel).Check(health_pb2.HealthCheckRequest())
    assert (await call).status == health_pb2.HealthCheckResponse.SERVING
    assert version_of(await call.initial_metadata()) == (BUILD, "nod.claims.v1")
