"""Who may call what (nodkit.callers): each calling service presents its own
token and may call only its methods; the single NOD_SERVICE_TOKEN may call
everything; an unknown token is refused."""

import grpc
from pydantic import SecretStr

from nod.claims.v1 import claims_pb2 as pb
from nodkit.client import call_metadata
from nodtest.claims import put_login
from nodtest.rpc import expect_error

from .support import claim_request

TOKENS = {"browser": "browser-token-9f2k", "gateway": "gateway-token-3m8q", "tasks": "tasks-q7"}
DENIED = grpc.StatusCode.PERMISSION_DENIED


def as_caller(name: str, person: str):
    return call_metadata(SecretStr(TOKENS[name]), person)


async def test_each_service_may_call_only_its_methods(claims_with, service_token, person):
    _, stub, vault = await claims_with(
        service_tokens=",".join(f"{name}:{token}" for name, token in TOKENS.items())
    )
    browser, gateway, tasks = (as_caller(n, person) for n in ("browser", "gateway", "tasks"))

    # Only the gateway puts the person's values in; the browser may not.
    await expect_error(
        vault.PutItem(pb.PutItemRequest(item=pb.VaultItem()), metadata=browser),
        DENIED,
        reason="CALLER_NOT_ALLOWED",
    )
    item = await put_login(vault, gateway)
    # Only the runner claims, and keeps its lease.
    await expect_error(
        stub.RenewHolder(pb.RenewHolderRequest(holder="runner-x"), metadata=gateway), DENIED
    )
    await stub.RenewHolder(pb.RenewHolderRequest(holder="runner-x"), metadata=browser)
    for not_the_runner in (gateway, tasks):
        await expect_error(
            stub.Claim(claim_request(item, "runner-x"), metadata=not_the_runner), DENIED
        )
        await expect_error(
            stub.ReleaseHolder(pb.ReleaseHolderRequest(holder="runner-x"), metadata=not_the_runner),
            DENIED,
        )
    granted = await stub.Claim(claim_request(item, "runner-x"), metadata=browser)
    assert granted.granted
    # Reading a claim is for tasks and the gateway.
    for reader in (tasks, gateway):
        reply = await stub.GetClaim(pb.GetClaimRequest(claim_id=granted.claim.id), metadata=reader)
        assert reply.claim.id == granted.claim.id
    # A token nobody was given is no caller at all.
    await expect_error(
        stub.GetClaim(
            pb.GetClaimRequest(claim_id=granted.claim.id),
            metadata=call_metadata(SecretStr("made-up"), person),
        ),
        grpc.StatusCode.UNAUTHENTICATED,
        reason="BAD_SERVICE_TOKEN",
    )


async def test_the_single_token_may_call_everything(claims_with, service_token, as_person):
    _, stub, vault = await claims_with(service_tokens=f"browser:{TOKENS['browser']}")
    item = await put_login(vault, as_person)
    await stub.RenewHolder(pb.RenewHolderRequest(holder="runner-y"), metadata=as_person)
    assert (await stub.Claim(claim_request(item, "runner-y"), metadata=as_person)).granted
