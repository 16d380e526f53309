"""nod's own addresses, which the browser never reaches whatever
NOD_BROWSER_ALLOWED_NETWORKS allows: loopback's 127.0.0.1 and ::1 (where
services listen on one machine, and the address guard itself), and the
addresses of this runner's listeners, of the claims service, of the
database and of this machine's name (a pod's own address), as they resolve
when the runner starts. A name that does not resolve then is left out: the
rule's public-only default still holds for it."""

import asyncio
import ipaddress
import socket
from urllib.parse import urlsplit

from nod_browser.adapters.egress_proxy import Resolver
from nod_browser.settings import BrowserSettings
from nodkit.logging import get_logger
from nodkit.networks import Address

log = get_logger("nod_browser.own_addresses")

ALWAYS: frozenset[Address] = frozenset(
    {ipaddress.ip_address("127.0.0.1"), ipaddress.ip_address("::1")}
)
RESOLVE_TIMEOUT_S = 5.0


def _host(endpoint: str) -> str | None:
    """`host:port`, `[v6]:port` or a gRPC target (`dns:///claims:50051`)."""
    authority = endpoint.rpartition("/")[2] if "//" in endpoint else endpoint
    try:
        return urlsplit(f"//{authority}").hostname
    except ValueError:
        return None


async def own_addresses(settings: BrowserSettings, resolver: Resolver) -> frozenset[Address]:
    endpoints = [settings.listen, settings.health_listen, settings.metrics_listen]
    # The claims service's replicas may be listed one by one, comma-separated.
    endpoints += settings.claims_addr.split(",")
    hosts = {_host(endpoint.strip()) for endpoint in endpoints if endpoint}
    hosts.add(urlsplit(settings.database_url).hostname)
    hosts.add(socket.gethostname())
    found: set[Address] = set(ALWAYS)
    for host in filter(None, hosts):
        try:
            found.add(ipaddress.ip_address(host))
            continue
        except ValueError:
            pass
        try:
            async with asyncio.timeout(RESOLVE_TIMEOUT_S):
                found.update(await resolver.resolve(host, 0))
        except (OSError, UnicodeError, TimeoutError):
            log.warning("egress.own_address_unresolved", host=host)
    # Listening on every interface says nothing of where; 0.0.0.0 is refused anyway.
    return frozenset(address for address in found if not address.is_unspecified)
