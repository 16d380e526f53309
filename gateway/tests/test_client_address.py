"""The address the sign-in limits count: the peer's own, unless the peer is
a proxy the operator trusts. A forged X-Forwarded-For names nobody."""

import pytest
from starlette.requests import Request

from nod_gateway.client_address import client_address, networks


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
