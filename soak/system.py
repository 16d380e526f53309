"""The soak's system: claims, approvals, payments, the browser runner and
the tasks service (its scripted planner) as processes (as deployed, so they
can be SIGKILLed, or stopped with SIGTERM, and started again on the same
address with the same instance id), each as one replica or several on one
database, and the demo shop and demo app in this process as the outside
world, counting what they receive.

Callers reach a service's replicas as deployed callers do: one address, or
a comma-separated list that nodkit.client spreads calls over (gRPC's
round_robin). A browser session lives in one replica's Chromium, so its
calls go to the replica that opened it (Operations picks one per session)."""

import asyncio
import base64
import os
import pathlib
import random
import secrets
import signal
from collections import Counter
from dataclasses import dataclass, field

from pydantic import SecretStr

from nod_demo.shop import Account, start_shop
from nod_demo.webhook_app import start_webhook_app
from nodkit.client import call_metadata, wait_until_serving
from nodtest.database import create_test_database, drop_test_database
from nodtest.processes import Peer

# In the order they start: each after the ones it calls.
SERVICES = ("claims", "approvals", "payments", "browser", "tasks")
SHOP_USERNAME = "soak@example.com"


@dataclass
class System:
    logs: pathlib.Path
    replicas: int = 1
    # Given (a highly available pair's, for one), it is the caller's to drop;
    # empty, a test database is made for this system and dropped with it.
    database_url: str = ""
    token: SecretStr = field(default_factory=lambda: SecretStr(secrets.token_urlsafe(18)))
    # Unique per run: the canaries the scan looks for afterwards.
    password: str = field(default_factory=lambda: f"soak-pw-{secrets.token_hex(8)}")
    peers: dict[str, list[Peer]] = field(default_factory=dict)
    # By instance id: SIGKILLs, and stops with SIGTERM followed by a start.
    kills: Counter[str] = field(default_factory=Counter)
    restarts: Counter[str] = field(default_factory=Counter)
    shop: object = None
    app: object = None
    _app_runner: object = None
    _own_database: bool = False

    async def start(self) -> "System":
        self.logs.mkdir(parents=True, exist_ok=True)
        if not self.database_url:
            self.database_url = create_test_database()
            self._own_database = True
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
            # The scripted planner buys the desk lamp, whatever this shell sets.
            "NOD_MODEL_URL": "",
            "NOD_TASKS_LEASE_TTL_S": "6",
            "NOD_TASKS_SWEEP_INTERVAL_S": "1",
            # What a SIGTERM leaves in-flight calls to finish in, as a pod's
            # grace would (shorter here: a rolling restart is one per replica).
            "NOD_SHUTDOWN_GRACE_S": "5",
        }
        for name in SERVICES:
            self.peers[name] = await self._start_replicas(name, env)
            # As deployed: a comma list that callers spread calls over (the
            # tasks service routes each browser session to its own replica).
            env[f"NOD_{name.upper()}_ADDR"] = self.address(name)
        return self

    async def _start_replicas(self, name: str, env: dict[str, str]) -> list[Peer]:
        peers = [
            Peer(name, {**env, "NOD_INSTANCE_ID": f"{name}-{n}"}, self.logs / f"{name}-{n}.log")
            for n in range(1, self.replicas + 1)
        ]
        await peers[0].start()  # migrates the schema once, before the others start
        await asyncio.gather(*(peer.start() for peer in peers[1:]))
        return peers

    def meta(self, person: str):
        return call_metadata(self.token, person)

    def address(self, name: str) -> str:
        """Every replica of the service, as its callers are configured."""
        return ",".join(self.addresses(name))

    def addresses(self, name: str) -> list[str]:
        return [peer.address for peer in self.peers[name]]

    def replica(self, instance_id: str) -> Peer:
        name = instance_id.rsplit("-", 1)[0]
        return next(p for p in self.peers[name] if p.process.env["NOD_INSTANCE_ID"] == instance_id)

    def instance_ids(self) -> list[str]:
        return [p.process.env["NOD_INSTANCE_ID"] for peers in self.peers.values() for p in peers]

    def touched(self) -> set[str]:
        """The instances that were killed or restarted: the only ones whose
        boot may have ended records UNCERTAIN."""
        return set(self.kills) | set(self.restarts)

    async def kill_one(self, rng: random.Random) -> str:
        """SIGKILL one replica of one service, as a crash would, and start it
        again at once on its address with its instance id (its boot
        reconciles its own records, and only those)."""
        instance_id = rng.choice(self.instance_ids())
        await self._bounce(instance_id, signal.SIGKILL)
        self.kills[instance_id] += 1
        return instance_id

    async def restart_each(self, pause_s: float = 1.0) -> None:
        """A rolling restart: every replica of every service in turn is sent
        SIGTERM (in-flight calls finish within the grace), started again and
        waited for until SERVING before the next one goes."""
        for instance_id in self.instance_ids():
            await self._bounce(instance_id, signal.SIGTERM)
            self.restarts[instance_id] += 1
            await asyncio.sleep(pause_s)

    async def _bounce(self, instance_id: str, signum: int) -> None:
        peer = self.replica(instance_id)
        await asyncio.to_thread(peer.process.kill, signum)
        peer.process.start()
        await wait_until_serving(peer.address, peer=peer.name, timeout_s=60)

    def log_texts(self) -> dict[str, str]:
        return {path.name: path.read_text(errors="replace") for path in self.logs.glob("*.log")}

    async def close(self) -> None:
        for peers in self.peers.values():
            for peer in peers:
                peer.stop()
        if self.shop is not None:
            await self.shop.close()
        if self._app_runner is not None:
            await self._app_runner.cleanup()
        if self._own_database:
            drop_test_database(self.database_url)
