"""The tasks tests' processes (conftest's peers and tasks_process), started
with room for a machine busy with other runs: the fault-point tests start
a tasks process twice per case, and Chromium's launch alone can take most
of the usual 30 s when every core is taken."""

import asyncio

from nod.tasks.v1 import tasks_pb2_grpc
from nodkit.client import open_channel
from nodtest.processes import Peer, ServiceProcess, free_port, run_migrate, wait_until_serving

from .support import Peers

START_S = 120.0


async def start_peer(peer: Peer) -> Peer:
    await asyncio.to_thread(run_migrate, peer.process.module, peer.process.env)
    peer.process.start()
    await wait_until_serving(peer.address, START_S, tls=peer.tls(), peer=peer.name)
    return peer


async def start_peers(service_env: dict[str, str], logs) -> Peers:
    """claims, approvals, payments and the browser runner, as conftest's peers."""
    quiet = {"NOD_CLAIMS_SWEEP_INTERVAL_S": "3600"}
    claims = await start_peer(Peer("claims", {**service_env, **quiet}, logs / "claims.log"))
    env = {**service_env, "NOD_CLAIMS_ADDR": claims.address}
    approvals_env = {**env, "NOD_APPROVALS_ALLOWED_NETWORKS": "127.0.0.0/8"}
    approvals = await start_peer(Peer("approvals", approvals_env, logs / "approvals.log"))
    payments = await start_peer(Peer("payments", env, logs / "payments.log"))
    browser_env = {**env, "NOD_BROWSER_ACTION_TIMEOUT_S": "5", "NOD_BROWSER_ENTRY_TIMEOUT_S": "10"}
    browser = await start_peer(Peer("browser", browser_env, logs / "browser.log"))
    return Peers(claims, approvals, payments, browser)


class TasksProcesses:
    """`python -m nod_tasks serve` processes, as conftest's tasks_process
    makes them, each with extra environment of its own (NOD_FAULTS)."""

    def __init__(self, service_env, peers: Peers, model_url: str, logs) -> None:
        self._env = {
            **service_env,
            "NOD_CLAIMS_ADDR": peers.claims.address,
            "NOD_APPROVALS_ADDR": peers.approvals.address,
            "NOD_PAYMENTS_ADDR": peers.payments.address,
            "NOD_BROWSER_ADDR": peers.browser.address,
            "NOD_MODEL_URL": model_url,
            "NOD_TASKS_OUTSIDE_WAITS_POLL_S": "0.05",
        }
        self._logs = logs
        self.made: list[ServiceProcess] = []

    async def start(self, instance_id: str, address: str = "", **env: str):
        """(process, stub, address); the same address again for a restart."""
        address = address or f"127.0.0.1:{free_port()}"
        process = ServiceProcess(
            "nod_tasks",
            {**self._env, "NOD_INSTANCE_ID": instance_id, "NOD_TASKS_LISTEN": address, **env},
            self._logs / f"{instance_id}.log",
        )
        process.start()
        self.made.append(process)
        await wait_until_serving(address, START_S)
        return process, tasks_pb2_grpc.TasksServiceStub(open_channel(address)), address

    def stop_all(self) -> None:
        for process in self.made:
            process.stop()
