"""Which addresses nod may connect to on a person's behalf (DESIGN.md
section 4): the one rule for the approvals service's connections to apps
(NOD_APPROVALS_ALLOWED_NETWORKS) and the browser's every request
(NOD_BROWSER_ALLOWED_NETWORKS).

Only public addresses: loopback, link-local (cloud metadata at
169.254.169.254), private, unique-local, shared (CGNAT, often a cluster's
inside), unspecified, multicast and other special-purpose addresses are
refused, unless the operator allows their network. Addresses named as never
reachable (a service's own) stay refused even inside an allowed network. An
IPv6 address that carries an IPv4 one (::ffff:a.b.c.d, 6to4, Teredo, NAT64)
is judged by that IPv4 address as well, so no spelling of an address slips
through.
"""

import enum
import ipaddress
from collections.abc import Collection, Sequence

Address = ipaddress.IPv4Address | ipaddress.IPv6Address
Network = ipaddress.IPv4Network | ipaddress.IPv6Network

_NAT64 = ipaddress.ip_network("64:ff9b::/96")


class Refusal(enum.StrEnum):
    """Why an address is refused, in words ("a loopback address"); the
    member's name, lower-cased, is the short reason logs and metrics use."""

    OWN = "one of nod's own addresses"
    UNSPECIFIED = "an unspecified address"
    LOOPBACK = "a loopback address"
    LINK_LOCAL = "a link-local address"
    MULTICAST = "a multicast address"
    PRIVATE = "a private address"
    SPECIAL = "a special-purpose address"

    @property
    def reason(self) -> str:
        return self.name.lower()


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


def _kind(address: Address) -> Refusal | None:
    if address.is_unspecified:
        return Refusal.UNSPECIFIED
    if address.is_loopback:
        return Refusal.LOOPBACK
    if address.is_link_local:
        return Refusal.LINK_LOCAL
    if address.is_multicast:
        return Refusal.MULTICAST
    if address.is_private:  # 10/8, 172.16/12, 192.168/16, fc00::/7 and other private ranges
        return Refusal.PRIVATE
    if address.is_reserved or not address.is_global:  # 100.64/10 (CGNAT) among them
        return Refusal.SPECIAL
    return None


def refusal(
    address: Address, allowed: Sequence[Network], never: Collection[Address] = ()
) -> Refusal | None:
    """What kind of address nod must not reach, or None when it may connect
    to it. `never`: addresses refused whatever `allowed` says; an unspecified
    address (0.0.0.0, ::) is one of them, since connecting to it reaches
    this very machine."""
    for judged in _judged_as(address):
        if judged in never:
            return Refusal.OWN
        if judged.is_unspecified:
            return Refusal.UNSPECIFIED
        if any(judged in network for network in allowed):
            continue
        kind = _kind(judged)
        if kind is not None:
            return kind
    return None
