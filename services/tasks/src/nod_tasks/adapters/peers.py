"""The other nod services, as the tasks service calls them: its own token,
the person in metadata, a deadline on every call, and one typed error
(NodRpcError). Only reads are retried (by the channel's service config); a
state-changing call that ends without a definite answer may have happened."""

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import grpc
from pydantic import SecretStr

from nod.approvals.v1 import approvals_pb2, approvals_pb2_grpc
from nod.browser.v1 import browser_pb2, browser_pb2_grpc
from nod.claims.v1 import claims_pb2, claims_pb2_grpc
from nod.payments.v1 import payments_pb2, payments_pb2_grpc
from nodkit import context
from nodkit.client import NodRpcError, call_metadata, open_channel, read_only_retry_config
from nodkit.tls import Tls


def _name(module: Any, service: str) -> str:
    return module.DESCRIPTOR.services_by_name[service].full_name


READS = {
    _name(claims_pb2, "ClaimsService"): ["GetClaim", "ListClaims", "FindClaim"],
    _name(claims_pb2, "VaultService"): ["ListItems"],
    _name(approvals_pb2, "ApprovalsService"): ["GetApproval", "ListApprovals", "ListAccounts"],
    _name(payments_pb2, "PaymentsService"): ["GetPayment", "ListPayments"],
    _name(browser_pb2, "BrowserService"): ["ReadPage", "ListSessions"],
}


class Peer:
    """One channel to one service (`name`, which its certificate must carry
    under TLS), and its stubs."""

    def __init__(
        self,
        address: str,
        token: SecretStr | None,
        timeout_s: float,
        *,
        name: str | None = None,
        tls: Tls | None = None,
    ) -> None:
        names = list(READS)
        methods = sorted({m for ms in READS.values() for m in ms})
        retry = read_only_retry_config(names, methods)
        self._channel = open_channel(address, service_config=retry, tls=tls, peer=name)
        self._token = token
        self.timeout_s = timeout_s

    def stub(self, stub_class: type) -> Any:
        return stub_class(self._channel)

    async def call(
        self,
        method: Callable[..., Awaitable[Any]],
        request: Any,
        owner: str,
        timeout_s: float | None = None,
    ) -> Any:
        metadata = call_metadata(self._token, owner, context.request_id.get())
        try:
            return await method(request, metadata=metadata, timeout=timeout_s or self.timeout_s)
        except grpc.aio.AioRpcError as error:
            raise NodRpcError(error) from None

    async def close(self) -> None:
        await self._channel.close(grace=None)


@dataclass
class Peers:
    claims: Peer
    approvals: Peer
    payments: Peer
    browser: Peer

    def __post_init__(self) -> None:
        self.claims_stub = self.claims.stub(claims_pb2_grpc.ClaimsServiceStub)
        self.vault_stub = self.claims.stub(claims_pb2_grpc.VaultServiceStub)
        self.approvals_stub = self.approvals.stub(approvals_pb2_grpc.ApprovalsServiceStub)
        self.payments_stub = self.payments.stub(payments_pb2_grpc.PaymentsServiceStub)
        self.browser_stub = self.browser.stub(browser_pb2_grpc.BrowserServiceStub)

    async def close(self) -> None:
        for peer in (self.claims, self.approvals, self.payments, self.browser):
            await peer.close()
