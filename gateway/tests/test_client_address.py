"""The address the sign-in limits count: the peer's own, unless the peer is
a proxy the operator trusts. A forged X-Forwarded-For names nobody, and a
trace context from anyone else is dropped."""

import pytest
from starlette.requests import Request

from nod_gateway.client_address import client_address, networks
from nod_gateway.web.trace_context import TraceContextFromProxiesOnly


def request_from(peer: str, *forwarded: str) -> Request:
    headers = [(b"x-forwarded-for", value.encode()) for value in forwarded]
    return Request({"type": "http", "client": (peer, 40000), "headers": headers})


def test_without_trusted_proxies_the_header_is_ignored():
    forged = request_from("127.0.0.1", "203.0.113.9")
    assert client_address(forged, ()) == "127.0.0.1"


def test_a_header_from_an_untrusted_peer_is_ignored():
    proxies = networks(["10.0.0.0/8"])
    assert client_address(request_from("192.0.2.4", "203.0.113.9"), proxies) == "192.0.2.4"


def test_a_trusted_proxy_names_the_client():
    proxies = networks(["10.0.0.0/8"])
    assert client_address(request_from("10.1.2.3", "203.0.113.9"), proxies) == "203.0.113.9"


def test_hops_the_client_wrote_itself_are_passed_over():
    # The client sent "X-Forwarded-For: 198.51.100.1"; the proxy appended the
    # address it saw. Only the rightmost untrusted hop is the proxy's word.
    proxies = networks(["10.0.0.0/8", "127.0.0.1"])
    chained = request_from("127.0.0.1", "198.51.100.1, 203.0.113.9", "10.0.0.5")
    assert client_address(chained, proxies) == "203.0.113.9"


def test_only_trusted_hops_leave_the_peer():
    proxies = networks(["10.0.0.0/8"])
    assert client_address(request_from("10.1.2.3", "10.0.0.7"), proxies) == "10.1.2.3"
    assert client_address(request_from("10.1.2.3"), proxies) == "10.1.2.3"


@pytest.mark.parametrize("bad", ["nope", "10.0.0.0/33", "", "127.0.0.1\x00"])
def test_a_proxy_that_is_no_address_is_refused_by_name(bad):
    with pytest.raises(ValueError, match="is not an IP address or network"):
        networks([bad])


# --- the trace context, believed from the same proxies only ----------------

TRACE = [
    (b"traceparent", b"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"),
    (b"tracestate", b"vendor=forged"),
    (b"baggage", b"user=someone-else"),
]


async def headers_passed_on(peer: str, proxies) -> list[tuple[bytes, bytes]]:
    """The headers the app behind TraceContextFromProxiesOnly receives."""
    seen: list[tuple[bytes, bytes]] = []

    async def app(scope, receive, send):
        seen.extend(scope["headers"])

    scope = {"type": "http", "client": (peer, 40000), "headers": [*TRACE, (b"accept", b"*/*")]}
    await TraceContextFromProxiesOnly(app, proxies)(scope, None, None)
    return seen


async def test_a_trace_context_from_anyone_else_is_dropped():
    passed = await headers_passed_on("192.0.2.4", networks(["10.0.0.0/8"]))
    assert passed == [(b"accept", b"*/*")]
    assert await headers_passed_on("127.0.0.1", ()) == [(b"accept", b"*/*")]


async def test_a_trusted_proxy_passes_its_trace_context_on():
    passed = await headers_passed_on("10.1.2.3", networks(["10.0.0.0/8"]))
    assert passed == [*TRACE, (b"accept", b"*/*")]
