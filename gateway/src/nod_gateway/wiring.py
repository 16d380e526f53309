"""The gateway's parts, built once from its settings: its database (people
and sessions only) its channels to the services, and the proxies it believes."""

from dataclasses import dataclass, field

from sqlalchemy.ext.asyncio import AsyncEngine

from nod_gateway import SCHEMA
from nod_gateway.client_address import Network, networks
from nod_gateway.peers import Peers
from nod_gateway.settings import GatewaySettings
from nodkit.db import create_engine


@dataclass
class Parts:
    settings: GatewaySettings
    engine: AsyncEngine
    peers: Peers
    trusted_proxies: tuple[Network, ...] = field(default=())

    async def close(self) -> None:
        await self.peers.close()
        await self.engine.dispose()


def build(settings: GatewaySettings) -> Parts:
    engine = create_engine(settings, SCHEMA)
    return Parts(settings, engine, Peers(settings), networks(settings.trusted_proxies))
