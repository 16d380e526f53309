"""Resolving an app's host to the addresses nod may connect to.

Both checks go through here: when an account is connected, and again at the
moment of sending, where the connectors then connect to one of the very
addresses checked (a name that resolves differently a second later can't
slip a refused address in between).
"""

import asyncio
import ipaddress
import socket
from collections.abc import Sequence

from nodkit.errors import InvalidArgument, Unavailable
from nodkit.networks import Address, Network, refusal

# At connect time; at send time the send's own budget bounds it.
RESOLVE_TIMEOUT_S = 5.0


class Refused(Exception):
    """The host has an address nod must not reach; the message says which."""


class Unresolved(Exception):
    """The host has no address."""


class AddressGuard:
    def __init__(self, allowed: Sequence[Network]) -> None:
        self._allowed = tuple(allowed)

    async def resolve(self, host: str, port: int) -> list[Address]:
        """Every address `host` has now, in the resolver's order, each one
        allowed; raises Refused naming the first that is not."""
        loop = asyncio.get_running_loop()
        try:
            found = await loop.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        except (OSError, UnicodeError):
            raise Unresolved(host) from None
        addresses = list(dict.fromkeys(ipaddress.ip_address(info[4][0]) for info in found))
        if not addresses:
            raise Unresolved(host)
        for address in addresses:
            if kind := refusal(address, self._allowed):
                # A name's addresses are not for the caller to learn.
                said = f"{host} is" if str(address) == host else f"{host} resolves to"
                raise Refused(f"{said} {kind}")
        return addresses

    async def check(self, field: str, host: str, port: int) -> None:
        """For an account being connected: bad input names `field`."""
        try:
            async with asyncio.timeout(RESOLVE_TIMEOUT_S):
                await self.resolve(host, port)
        except Refused as refused:
            raise InvalidArgument(field, f"must reach a public address ({refused})") from None
        except Unresolved:
            raise InvalidArgument(field, "names a host that does not resolve") from None
        except TimeoutError:
            raise Unavailable(
                f"{field}: its host could not be looked up in time; nothing was changed",
                reason="LOOKUP_TIMEOUT",
            ) from None
