"""Calling another nod service: one shared way for every caller.

A Peer is one channel to one service. Each call carries the caller's own
token, the person it acts for and the request id, and has a deadline: the
peer's own limit, never past the deadline of the call being served. A
failure arrives as one typed error, NodRpcError, which says whether the
change may have happened.

Which calls may be retried is the contract's to say, not the caller's: a
method marked `option idempotency_level = NO_SIDE_EFFECTS` in its proto is a
read, and only those are retried, by the channel's service config, when the
peer is briefly unavailable. Nothing that changes state is ever resent.
"""

import asyncio
import json
from collections.abc import Awaitable, Callable, Iterable, Sequence
from typing import Any

import grpc
from google.protobuf.descriptor import ServiceDescriptor
from google.protobuf.descriptor_pb2 import MethodOptions
from pydantic import SecretStr

from nodkit import context
from nodkit.client import NodRpcError, call_metadata, open_channel

# The smallest deadline worth sending when the caller's is nearly spent.
MIN_TIMEOUT_S = 0.05
RETRY_POLICY = {
    "maxAttempts": 3,
    "initialBackoff": "0.1s",
    "maxBackoff": "1s",
    "backoffMultiplier": 2,
    "retryableStatusCodes": ["UNAVAILABLE"],
}


def reads(services: Iterable[ServiceDescriptor]) -> list[tuple[str, str]]:
    """(service, method) of every method the contract marks side-effect free."""
    return [
        (service.full_name, method.name)
        for service in services
        for method in service.methods
        if method.GetOptions().idempotency_level == MethodOptions.NO_SIDE_EFFECTS
    ]


def retry_reads_config(services: Iterable[ServiceDescriptor]) -> str:
    """A channel service config that retries the reads, and only them."""
    names = [{"service": service, "method": method} for service, method in reads(services)]
    return json.dumps({"methodConfig": [{"name": names, "retryPolicy": RETRY_POLICY}]})


def changes_state(service: ServiceDescriptor, method: str) -> bool:
    """Whether a failed call of `method` may have changed something."""
    return (service.full_name, method) not in set(reads([service]))


def timeout_within_caller(own_s: float) -> float:
    """`own_s`, cut to what is left of the served call's deadline."""
    caller_deadline = context.deadline.get()
    if caller_deadline is None:
        return own_s
    left = caller_deadline - asyncio.get_running_loop().time()
    return max(MIN_TIMEOUT_S, min(own_s, left))


class Peer:
    """One channel to one service (all its gRPC services share it)."""

    def __init__(
        self,
        address: str,
        token: SecretStr,
        timeout_s: float,
        services: Sequence[ServiceDescriptor],
        *,
        within_caller_deadline: bool = True,
    ) -> None:
        """within_caller_deadline=False for calls that must go out in full
        even when the served call's caller has gone (a claim's end)."""
        self.address = address
        self.timeout_s = timeout_s
        self._within_caller_deadline = within_caller_deadline
        self._token = token
        self._channel = open_channel(address, service_config=retry_reads_config(services))

    def stub(self, stub_class: type) -> Any:
        return stub_class(self._channel)

    async def call(
        self,
        method: Callable[..., Awaitable[Any]],
        request: Any,
        person: str | None,
        *,
        timeout_s: float | None = None,
    ) -> Any:
        metadata = call_metadata(self._token, person, context.request_id.get())
        timeout = timeout_s or self.timeout_s
        if self._within_caller_deadline:
            timeout = timeout_within_caller(timeout)
        try:
            return await method(request, metadata=metadata, timeout=timeout)
        except grpc.aio.AioRpcError as error:
            raise NodRpcError(error) from None

    async def close(self) -> None:
        await self._channel.close(grace=None)
