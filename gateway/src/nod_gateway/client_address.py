"""Which address a request came from, for the sign-in limits and the logs.

The connection's own peer, unless that peer is one of the proxies the
operator named (NOD_GATEWAY_TRUSTED_PROXIES): then the address that proxy
says it was called from, read right to left through X-Forwarded-For past
every trusted hop. A header from anyone else is ignored, so nobody can
name an address to lock it out, or vary the header to never be limited.
"""

import ipaddress
from collections.abc import Iterable

from starlette.requests import Request

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def networks(proxies: Iterable[str]) -> tuple[Network, ...]:
    """Addresses or CIDR blocks; ValueError names the one that is neither."""
    parsed = []
    for proxy in proxies:
        try:
            parsed.append(ipaddress.ip_network(proxy.strip(), strict=False))
        except ValueError:
            raise ValueError(f"{proxy!r} is not an IP address or network") from None
    return tuple(parsed)


def trusted(address: str, proxies: tuple[Network, ...]) -> bool:
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    return any(ip in network for network in proxies)


def client_address(request: Request, proxies: tuple[Network, ...]) -> str:
    peer = request.client.host if request.client else ""
    if not trusted(peer, proxies):
        return peer
    hops = [
        hop.strip()
        for header in request.headers.getlist("x-forwarded-for")
        for hop in header.split(",")
    ]
    for hop in reversed(hops):
        if not trusted(hop, proxies):
            # What a trusted hop wrote: an address, or the proxy's word for
            # one it couldn't tell (kept short for the log and the row).
            return hop[:64]
    return peer
