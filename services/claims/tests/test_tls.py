"""The claims service over TLS, built by its own wiring (docs/SECURITY.md):
with TLS on, plaintext and strangers' certificates are refused at the
handshake; under mutual TLS the caller's certificate names the calling
service and the one allow-list (nodkit.callers) says what it may call, with
or without a token beside it; with NOD_TLS_ACCEPT_TOKENS=false a token names
nobody."""

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from pydantic import SecretStr

from nod.claims.v1 import claims_pb2 as pb
from nod.claims.v1 import claims_pb2_grpc
from nod_claims.settings import ClaimsSettings
from nod_claims.wiring import build
from nodkit import service
from nodkit.client import call_metadata, open_channel, wait_until_serving
from nodkit.tls import Tls
from nodtest.claims import put_login
from nodtest.rpc import expect_error

from .support import claim_request

DENIED = grpc.StatusCode.PERMISSION_DENIED
UNAUTHENTICATED = grpc.StatusCode.UNAUTHENTICATED
# A handshake refused: the call never reached the service.
REFUSED = grpc.StatusCode.UNAVAILABLE


@pytest.fixture
def over_tls(claims_with, tls_authority):
    """start(**settings) -> the address of a claims server serving with its
    own certificate from the test CA (mutual TLS unless told otherwise)."""

    async def start(require_client_cert=True, accept_tokens=True, **overrides):
        claims = tls_authority.issue("claims")
        tls = claims.settings(require_client_cert=require_client_cert, accept_tokens=accept_tokens)
        address, _, _ = await claims_with(**tls, **overrides)
        return address

    return start


@pytest.fixture
async def dial(tls_authority):
    """dial(address, as_service) -> (claims stub, vault stub) over TLS,
    presenting `as_service`'s certificate (None: no certificate, only the
    CA), or the material given as `tls`."""
    channels = []

    def open_as(address: str, as_service: str | None, tls: Tls | None = None):
        if tls is None and as_service is not None:
            tls = tls_authority.issue(as_service).tls()
        if tls is None:
            credentials = grpc.ssl_channel_credentials(tls_authority.ca_file.read_bytes())
            options = [("grpc.ssl_target_name_override", "claims")]
            channel = grpc.aio.secure_channel(address, credentials, options=options)
        else:
            channel = open_channel(address, tls=tls, peer="claims")
        channels.append(channel)
        return claims_pb2_grpc.ClaimsServiceStub(channel), claims_pb2_grpc.VaultServiceStub(channel)

    yield open_as
    for channel in channels:
        await channel.close()


def as_service(person: str, token=None):
    return call_metadata(token, person)


async def test_plaintext_is_refused_when_tls_is_on(claims_with, tls_authority, as_person):
    claims = tls_authority.issue("claims")
    _, _, plain_vault = await claims_with(**claims.settings(require_client_cert=False))
    await expect_error(
        plain_vault.ListItems(pb.ListItemsRequest(), metadata=as_person, timeout=5), REFUSED
    )


async def test_server_tls_alone_still_takes_tokens(over_tls, dial, service_token, person):
    address = await over_tls(require_client_cert=False)
    _, vault = dial(address, None)
    await vault.ListItems(pb.ListItemsRequest(), metadata=as_service(person, service_token))
    await expect_error(
        vault.ListItems(pb.ListItemsRequest(), metadata=as_service(person)),
        UNAUTHENTICATED,
        reason="BAD_SERVICE_TOKEN",
    )


async def test_a_caller_without_a_certificate_is_refused_under_mutual_tls(
    over_tls, dial, service_token, person
):
    address = await over_tls()
    _, vault = dial(address, None)
    await expect_error(
        vault.ListItems(
            pb.ListItemsRequest(), metadata=as_service(person, service_token), timeout=5
        ),
        REFUSED,
    )


async def test_a_certificate_from_another_ca_is_refused(
    over_tls, dial, tls_authority, other_authority, service_token, person
):
    address = await over_tls()
    stranger = other_authority.issue("gateway")
    tls = Tls.from_files(
        str(stranger.cert_file), str(stranger.key_file), str(tls_authority.ca_file)
    )
    _, vault = dial(address, None, tls)
    await expect_error(
        vault.ListItems(
            pb.ListItemsRequest(), metadata=as_service(person, service_token), timeout=5
        ),
        REFUSED,
    )


async def test_a_client_checks_it_reached_the_service_it_meant(over_tls, tls_authority, person):
    """The claims service's certificate does not pass for the payments service's."""
    address = await over_tls()
    channel = open_channel(address, tls=tls_authority.issue("gateway").tls(), peer="payments")
    try:
        vault = claims_pb2_grpc.VaultServiceStub(channel)
        await expect_error(
            vault.ListItems(pb.ListItemsRequest(), metadata=as_service(person), timeout=5), REFUSED
        )
    finally:
        await channel.close()


async def test_a_certificate_may_call_only_what_its_service_may(over_tls, dial, person):
    address = await over_tls()
    _, gateway_vault = dial(address, "gateway")
    gateway_claims, _ = dial(address, "gateway")
    browser_claims, browser_vault = dial(address, "browser")
    meta = as_service(person)

    item = await put_login(gateway_vault, meta)
    # The browser's certificate can't put a person's values in...
    await expect_error(
        browser_vault.PutItem(pb.PutItemRequest(item=pb.VaultItem()), metadata=meta),
        DENIED,
        reason="CALLER_NOT_ALLOWED",
    )
    # ...and the gateway's can't claim: only the runner types a value.
    await expect_error(
        gateway_claims.Claim(claim_request(item, "runner-tls"), metadata=meta),
        DENIED,
        reason="CALLER_NOT_ALLOWED",
    )
    await browser_claims.RenewHolder(pb.RenewHolderRequest(holder="runner-tls"), metadata=meta)
    assert (await browser_claims.Claim(claim_request(item, "runner-tls"), metadata=meta)).granted


async def test_a_good_mutual_tls_call_works_with_and_without_a_token(
    over_tls, dial, service_token, person
):
    tokens = {"browser": "browser-tls-token", "gateway": "gateway-tls-token"}
    address = await over_tls(
        service_tokens=",".join(f"{name}:{token}" for name, token in tokens.items())
    )
    _, vault = dial(address, "gateway")
    request = pb.ListItemsRequest()
    for token in (None, SecretStr(tokens["gateway"]), service_token):
        await vault.ListItems(request, metadata=as_service(person, token))
    # A token beside a certificate must be that service's own (or the single one).
    await expect_error(
        vault.ListItems(request, metadata=as_service(person, SecretStr(tokens["browser"]))),
        UNAUTHENTICATED,
        reason="CALLER_MISMATCH",
    )
    await expect_error(
        vault.ListItems(request, metadata=as_service(person, SecretStr("made-up"))),
        UNAUTHENTICATED,
        reason="BAD_SERVICE_TOKEN",
    )


async def test_the_single_token_does_not_widen_a_certificate(over_tls, dial, service_token, person):
    address = await over_tls()
    _, gateway_vault = dial(address, "gateway")
    gateway_claims, _ = dial(address, "gateway")
    item = await put_login(gateway_vault, as_service(person))
    await expect_error(
        gateway_claims.Claim(
            claim_request(item, "runner-tls"), metadata=as_service(person, service_token)
        ),
        DENIED,
        reason="CALLER_NOT_ALLOWED",
    )


async def test_without_tokens_only_the_certificate_names_the_caller(
    claims_with, tls_authority, dial, service_token, person
):
    """NOD_TLS_ACCEPT_TOKENS=false: the service needs no token set at all, a
    token alone gets no further than the handshake, and one beside a
    certificate is not looked at."""
    claims = tls_authority.issue("claims")
    address, _, _ = await claims_with(
        service_token=None, **claims.settings(require_client_cert=True, accept_tokens=False)
    )
    _, tokens_only = dial(address, None)
    await expect_error(
        tokens_only.ListItems(
            pb.ListItemsRequest(), metadata=as_service(person, service_token), timeout=5
        ),
        REFUSED,
    )
    gateway_claims, gateway_vault = dial(address, "gateway")
    item = await put_login(gateway_vault, as_service(person, service_token))
    await expect_error(
        gateway_claims.Claim(
            claim_request(item, "runner-tls"), metadata=as_service(person, service_token)
        ),
        DENIED,
    )


async def test_a_service_wont_serve_with_another_services_certificate(
    claims_migrated, vault_key, service_token, tls_authority, log_tee
):
    settings = ClaimsSettings(
        database_url=claims_migrated,
        vault_key=vault_key,
        service_token=service_token,
        **tls_authority.issue("tasks").settings(),
    )
    with pytest.raises(ValueError, match="must name the claims service"):
        await service.start(await build(settings), settings, listen="127.0.0.1:0")


async def test_health_and_its_wait_speak_tls(over_tls, tls_authority):
    """Probes and nodkit's wait need no token, but they do need TLS."""
    address = await over_tls()
    tls = tls_authority.issue("tasks").tls()
    await wait_until_serving(address, timeout_s=10, tls=tls, peer="claims")
    async with open_channel(address, tls=tls, peer="claims") as channel:
        reply = await health_pb2_grpc.HealthStub(channel).Check(
            health_pb2.HealthCheckRequest(service="nod.claims.v1.ClaimsService"), timeout=5
        )
        assert reply.status == health_pb2.HealthCheckResponse.SERVING
