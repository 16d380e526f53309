"""The soak's system: claims, approvals, payments and the browser runner as
processes (as deployed, so they can be SIGKILLed and started again on the
same address with the same instance id), the demo shop and demo app in this
process as the outside world, counting what they receive."""

import asyncio
import base64
import os
import pathlib
import random
import secrets
from dataclasses import dataclass, field

from pydantic import SecretStr

from nod_demo.shop import Account, start_shop
from nod_demo.webhook_app import start_webhook_app
from nodkit.client import call_metadata, wait_until_serving
from nodtest.database import create_test_database, drop_test_database
from nodtest.processes import Peer

KILLABLE = ("claims", "approvals", "payments", "browser")
SHOP_USERNAME = "soak@example.com"


@dataclass
class System:
    logs: pathlib.Path
    token: SecretStr = field(default_factory=lambda: SecretStr(secrets.token_urlsafe(18)))
    # Unique per run: the canaries the scan looks for afterwards.
    password: str = field(default_factory=lambda: f"soak-pw-{secrets.token_hex(8)}")
    database_url: str = ""
    peers: dict[str, Peer] = field(default_factory=dict)
    kills: dict[str, int] = field(default_factory=dict)
    shop: object = None
    app: object = None
    _app_runner: object = None

    async def start(self) -> "System":
        self.logs.mkdir(parents=True, exist_ok=True)
        self.database_url = create_test_database()
        self.shop = await start_shop([Account(SHOP_USERNAME, self.password)])
        self._app_runner, url, self.app = await start_webhook_app()
        self.app.url = url
        env = {
            "NOD_DATABASE_URL": self.database_url,
            "NOD_SERVICE_TOKEN": self.token.get_secret_value(),
            "NOD_VAULT_KEY": base64.b64encode(os.urandom(32)).decode(),
            # Leases short enough that a killed holder's records end within
            # the soak's closing wait, not half a minute later.
            "NOD_CLAIMS_LEASE_TTL_S": "6",
            "NOD_CLAIMS_SWEEP_INTERVAL_S": "1",
            "NOD_APPROVALS_LEASE_TTL_S": "6",
            "NOD_APPROVALS_SWEEP_INTERVAL_S": "1",
            "NOD_APPROVALS_ALLOWED_NETWORKS": "127.0.0.0/8",
            "NOD_PAYMENTS_LEASE_TTL_S": "6",
            "NOD_PAYMENTS_SWEEP_INTERVAL_S": "1",
            "NOD_BROWSER_LEASE_RENEW_S": "2",
            "NOD_BROWSER_ACTION_TIMEOUT_S": "5",
            "NOD_BROWSER_ENTRY_TIMEOUT_S": "10",
        }
        claims = await Peer("claims", env, self.logs / "claims.log").start()
        env["NOD_CLAIMS_ADDR"] = claims.address
        self.peers["claims"] = claims
        for name in ("approvals", "payments", "browser"):
            self.peers[name] = await Peer(name, env, self.logs / f"{name}.log").start()
        self.kills = dict.fromkeys(KILLABLE, 0)
        return self

    def meta(self, person: str):
        return call_metadata(self.token, person)

    def address(self, name: str) -> str:
        return self.peers[name].address

    async def kill_one(self, rng: random.Random) -> str:
        """SIGKILL one service, as a crash would, and start it again at
        once on its address with its instance id (its boot reconciles)."""
        name = rng.choice(KILLABLE)
        peer = self.peers[name]
        await asyncio.to_thread(peer.process.kill)
        self.kills[name] += 1
        peer.process.start()
        await wait_until_serving(peer.address, peer=name, timeout_s=60)
        return name

    def log_texts(self) -> dict[str, str]:
        return {path.name: path.read_text(errors="replace") for path in self.logs.glob("*.log")}

    async def close(self) -> None:
        for peer in self.peers.values():
            peer.stop()
        if self.shop is not None:
            await self.shop.close()
        if self._app_runner is not None:
            await self._app_runner.cleanup()
        if self.database_url:
            drop_test_database(self.database_url)
