"""The gateway's parts, built once from its settings: its database (people
and sessions only) and its channels to the services."""

from dataclasses import dataclass

from sqlalchemy.ext.asyncio import AsyncEngine

from nod_gateway import SCHEMA
from nod_gateway.peers import Peers
from nod_gateway.settings import GatewaySettings
from nodkit.db import create_engine


@dataclass
class Parts:
    settings: GatewaySettings
    engine: AsyncEngine
    peers: Peers

    async def close(self) -> None:
        await self.peers.close()
        await self.engine.dispose()


def build(settings: GatewaySettings) -> Parts:
    return Parts(settings, create_engine(settings, SCHEMA), Peers(settings))
