"""Where nod may connect on a person's behalf (DESIGN.md section 4).

An account's app must be on the public internet: loopback, link-local (cloud
metadata at 169.254.169.254), private, unique-local, unspecified, multicast
and other special-purpose addresses are refused, unless the operator allows
their network (NOD_APPROVALS_ALLOWED_NETWORKS). An IPv6 address that carries
an IPv4 one (::ffff:a.b.c.d, 6to4, Teredo, NAT64) is judged by that IPv4
address as well, so no spelling of an address slips through.
"""

import ipaddress
from collections.abc import Sequence

Address = ipaddress.IPv4Address | ipaddress.IPv6Address
Network = ipaddress.IPv4Network | ipaddress.IPv6Network

_NAT64 = ipaddress.ip_network("64:ff9b::/96")


def parse_networks(text: str) -> tuple[Network, ...]:
    """`127.0.0.0/8, ::1/128` -> networks. Host bits set (10.0.0.1/8) are a
    mistake worth saying, not guessing at."""
    networks: list[Network] = []
    for part in filter(None, (p.strip() for p in text.split(","))):
        try:
            networks.append(ipaddress.ip_network(part))
        except ValueError:
            raise ValueError(f"{part!r} is not a network such as 127.0.0.0/8") from None
    return tuple(networks)


def _judged_as(address: Address) -> list[Address]:
    if not isinstance(address, ipaddress.IPv6Address):
        return [address]
    # Another spelling of an IPv4 address: only that address counts.
    if address.ipv4_mapped is not None:
        return [address.ipv4_mapped]
    if address in _NAT64:
        return [ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)]
    # A tunnel to an IPv4 address: both ends count.
    carried = address.sixtofour or (address.teredo[1] if address.teredo else None)
    return [address, carried] if carried is not None else [address]


def _kind(address: Address) -> str | None:
    if address.is_unspecified:
        return "an unspecified address"
    if address.is_loopback:
        return "a loopback address"
    if address.is_link_local:
        return "a link-local address"
    if address.is_multicast:
        return "a multicast address"
    if address.is_private:  # 10/8, 172.16/12, 192.168/16, fc00::/7 and other private ranges
        return "a private address"
    if address.is_reserved or not address.is_global:
        return "a special-purpose address"
    return None


def refusal(address: Address, allowed: Sequence[Network]) -> str | None:
    """What kind of address nod must not reach (e.g. "a loopback address"),
    or None when it may connect to it."""
    for judged in _judged_as(address):
        if any(judged in network for network in allowed):
            continue
        kind = _kind(judged)
        if kind is not None:
            return kind
    return None
