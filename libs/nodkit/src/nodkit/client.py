"""Calling another nod service: one channel per peer (over TLS with the
service's own certificate when it has one, nodkit.tls), the service token and
the person in metadata, a deadline on every call, and one typed error.

Retries live in the channel's service config and cover only the methods a
proto marks side-effect free (nodkit.peers). A state-changing call is never
retried: if it ends without a definite answer, NodRpcError.may_have_happened
is True and the caller must treat the change as possibly made (G4, G5).
"""

import asyncio
import ipaddress
import json
import time
import urllib.request
from typing import Any

import grpc
from google.rpc import error_details_pb2
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_status import rpc_status
from pydantic import SecretStr

from nodkit import tracing
from nodkit.tls import Tls, server_name_override

# Codes that mean the server definitely refused and changed nothing.
DEFINITE_REFUSALS = frozenset(
    {
        grpc.StatusCode.INVALID_ARGUMENT,
        grpc.StatusCode.NOT_FOUND,
        grpc.StatusCode.ALREADY_EXISTS,
        grpc.StatusCode.FAILED_PRECONDITION,
        grpc.StatusCode.PERMISSION_DENIED,
        grpc.StatusCode.UNAUTHENTICATED,
        grpc.StatusCode.RESOURCE_EXHAUSTED,
        grpc.StatusCode.OUT_OF_RANGE,
        grpc.StatusCode.UNIMPLEMENTED,
    }
)


def open_channel(
    address: str,
    *,
    service_config: str | None = None,
    tls: Tls | None = None,
    peer: str | None = None,
) -> grpc.aio.Channel:
    """A channel to the service at `address` (see channel_target): one
    replica, or calls spread over every replica it names; with `tls`, over
    TLS presenting this service's certificate, and checking that the
    server's names `peer` (the service meant, e.g. "claims") whatever the
    address says."""
    options: list[tuple[str, Any]] = [
        ("grpc.enable_retries", 1 if service_config else 0),
        # Connections belong to this channel: a new channel to a peer that just
        # restarted connects afresh instead of sharing another's backoff.
        ("grpc.use_local_subchannel_pool", 1),
        # A peer that refused a connection is tried again with a growing
        # backoff (up to two minutes by default), and calls meanwhile fail at
        # once: a peer restarted in the meantime is found within two seconds.
        ("grpc.initial_reconnect_backoff_ms", 200),
        ("grpc.max_reconnect_backoff_ms", 2000),
    ]
    if names_replicas(address):
        options.append(("grpc.service_config", with_round_robin(service_config)))
    elif service_config:
        options.append(("grpc.service_config", service_config))
    return _channel(address, options, tls, peer)


def with_round_robin(service_config: str | None) -> str:
    """`service_config` with gRPC's own round_robin balancer: each call goes
    to the next replica that is connected, and a replica that goes away is
    left out until it answers again."""
    config = json.loads(service_config) if service_config else {}
    config["loadBalancingConfig"] = [{"round_robin": {}}]
    return json.dumps(config)


def names_replicas(address: str) -> bool:
    """Whether `address` names several replicas to spread calls over."""
    return "," in address or address.startswith("dns:")


def channel_target(address: str) -> str:
    """The gRPC target an address setting names:
    - `host:port`: one replica. gRPC's default (pick_first) keeps one
      connection, and a call made after the replica restarted reconnects
      before it is sent rather than failing at once;
    - `dns:///name:port`: every address the name resolves to (a Kubernetes
      headless Service's pods), calls spread over them (round_robin);
    - `IP:port,IP:port`: the replicas listed, calls spread over them."""
    parts = [part.strip() for part in address.split(",")]
    if len(parts) == 1:
        return parts[0]
    named = [part for part in parts if not _is_ip_address(part.rsplit(":", 1)[0].strip("[]"))]
    if named:
        raise ValueError(
            f"{address!r}: several replicas are listed by IP address"
            f" ({', '.join(named)} is not one); or give dns:///NAME:PORT, a name that"
            " resolves to them all"
        )
    scheme = "ipv6" if parts[0].startswith("[") else "ipv4"
    return f"{scheme}:{','.join(parts)}"


def _is_ip_address(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


def _channel(
    address: str, options: list[tuple[str, Any]], tls: Tls | None, peer: str | None
) -> grpc.aio.Channel:
    target = channel_target(address)
    # Empty unless tracing is on: then each call carries its trace context.
    interceptors = tracing.client_interceptors()
    if tls is None:
        return grpc.aio.insecure_channel(target, options=options, interceptors=interceptors)
    override = server_name_override(address.split(",")[0].strip(), peer)
    if override is not None:
        options = [*options, ("grpc.ssl_target_name_override", override)]
    return grpc.aio.secure_channel(
        target, tls.channel_credentials(), options=options, interceptors=interceptors
    )


def call_metadata(token: SecretStr | None, user: str | None = None, request_id: str | None = None):
    """`token` is None when the certificate alone names the caller."""
    metadata = [] if token is None else [("authorization", f"Bearer {token.get_secret_value()}")]
    if user is not None:
        metadata.append(("x-nod-user", user))
    if request_id is not None:
        metadata.append(("x-request-id", request_id))
    return tuple(metadata)


class NodRpcError(Exception):
    """A failed call to a nod service, with its ErrorInfo reason decoded."""

    def __init__(self, error: grpc.aio.AioRpcError) -> None:
        self.code = error.code()
        self.message = error.details() or ""
        self.reason = ""
        self.field = ""
        self.metadata: dict[str, str] = {}
        # An AioRpcError carries what from_call reads (code, details, trailers).
        status = rpc_status.from_call(error) if error.trailing_metadata() else None  # type: ignore[arg-type]
        for detail in status.details if status else ():
            info = error_details_pb2.ErrorInfo()
            if detail.Unpack(info):
                self.reason = info.reason
                self.metadata = dict(info.metadata)
                self.field = self.metadata.get("field", "")
        super().__init__(f"{self.code.name}: {self.message}")

    @classmethod
    def refused_here(cls, code: grpc.StatusCode, message: str, reason: str) -> "NodRpcError":
        """A refusal decided on this side, before any call was sent: it reads
        as the same refusal from the service would."""
        error = cls.__new__(cls)
        Exception.__init__(error, f"{code.name}: {message}")
        error.code, error.message, error.reason = code, message, reason
        error.field, error.metadata = "", {}
        return error

    @property
    def may_have_happened(self) -> bool:
        """True unless the server definitely did nothing."""
        if self.code in DEFINITE_REFUSALS:
            return False
        return not (self.code == grpc.StatusCode.UNAVAILABLE and self.reason == "NOT_READY")


async def wait_until_serving(
    address: str, timeout_s: float = 30.0, *, tls: Tls | None = None, peer: str | None = None
) -> None:
    """Health says SERVING at `address` (over TLS as open_channel's)."""
    deadline = asyncio.get_running_loop().time() + timeout_s
    # Reconnect quickly: the default backoff (1 s, then longer) would add
    # seconds after a process that was still starting refused the first try.
    options: list[tuple[str, Any]] = [
        ("grpc.initial_reconnect_backoff_ms", 50),
        ("grpc.max_reconnect_backoff_ms", 200),
    ]
    async with _channel(address, options, tls, peer) as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        while True:
            try:
                reply = await stub.Check(health_pb2.HealthCheckRequest(), timeout=1)
                if reply.status == health_pb2.HealthCheckResponse.SERVING:
                    return
            except grpc.aio.AioRpcError:
                pass
            if asyncio.get_running_loop().time() > deadline:
                raise TimeoutError(f"{address} did not report SERVING in {timeout_s}s")
            await asyncio.sleep(0.1)


def wait_until_answering(url: str, timeout_s: float = 30.0) -> None:
    """An HTTP peer (the gateway's /healthz) answers 200 at `url`; blocking,
    for set-up scripts and tests (run it in a thread from async code)."""
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            with urllib.request.urlopen(url, timeout=2) as reply:
                if reply.status == 200:
                    return
        except OSError:
            pass
        if time.monotonic() > deadline:
            raise TimeoutError(f"{url} did not answer in {timeout_s}s")
        time.sleep(0.2)
