"""Two browser replicas, as the tasks service calls them (its BrowserPeer
over NOD_BROWSER_ADDR listing both). Sessions are opened on each in turn
and every later call for a session reaches the replica that holds it, so
each session shows its own page. A session whose replica is gone answers
an error, never another replica's page: UNAVAILABLE while the replica is
down, SESSION_NOT_FOUND once it is back without the session (the task
then opens a new one and says so), and the same for a replica no longer
listed. Closing a task's sessions reaches every replica. Each replica's
own ListSessions is the proof of where a session lives."""

import signal
import uuid

import grpc
import pytest

from nod.browser.v1 import browser_pb2 as pb
from nod.browser.v1 import browser_pb2_grpc
from nod_tasks.adapters.browser import BrowserPeer
from nodkit.client import NodRpcError, call_metadata, open_channel
from nodtest.browser import poll
from nodtest.processes import Peer, wait_until_serving

SESSION_NOT_FOUND = "SESSION_NOT_FOUND"


@pytest.fixture
async def two_browsers(service_env, peers, tmp_path):
    env = {**service_env, "NOD_CLAIMS_ADDR": peers.claims.address}
    replicas = []
    for name in ("a", "b"):
        peer = Peer("browser", {**env, "NOD_INSTANCE_ID": f"browser-{name}"}, tmp_path / name)
        replicas.append(await peer.start())
    yield replicas
    for peer in replicas:
        peer.stop()


async def sessions_on(replica: Peer, token, person: str) -> set[str]:
    """The session ids a replica itself holds for the person."""
    async with open_channel(replica.address) as channel:
        stub = browser_pb2_grpc.BrowserServiceStub(channel)
        reply = await stub.ListSessions(
            pb.ListSessionsRequest(), metadata=call_metadata(token, person), timeout=10
        )
    return {session.session_id for session in reply.sessions}


async def refusal(call) -> NodRpcError:
    with pytest.raises(NodRpcError) as raised:
        await call
    return raised.value


async def test_each_session_stays_on_its_replica_and_a_lost_one_is_never_another_page(
    two_browsers, service_token, person, pattern_sites
):
    a, b = two_browsers
    browser = BrowserPeer(f"{a.address},{b.address}", service_token, 15.0)
    task_id = f"task-{uuid.uuid4().hex[:8]}"
    try:
        on_a = await browser.open_session(person, task_id)
        on_b = await browser.open_session(person, task_id)
        assert on_a.endswith(f"@{a.address}") and on_b.endswith(f"@{b.address}")
        assert await sessions_on(a, service_token, person) == {on_a.split("@")[0]}
        assert await sessions_on(b, service_token, person) == {on_b.split("@")[0]}

        await browser.navigate(person, on_a, f"{pattern_sites.url}/code")
        await browser.navigate(person, on_b, f"{pattern_sites.url}/checkout")
        assert (await browser.read_page(person, on_a)).url.endswith("/code")
        assert (await browser.read_page(person, on_b)).url.endswith("/checkout")

        # Replica a dies: its session is an error, never b's page.
        a.process.kill(signal.SIGKILL)
        gone = await refusal(browser.read_page(person, on_a))
        assert gone.code == grpc.StatusCode.UNAVAILABLE, gone
        assert (await browser.read_page(person, on_b)).url.endswith("/checkout")

        # Back without the session: a clear "not found", as a lost session,
        # once the caller's channel has connected again (within two seconds).
        a.process.start()
        await wait_until_serving(a.address, timeout_s=60)

        async def answered():
            error = await refusal(browser.read_page(person, on_a))
            return error if error.code != grpc.StatusCode.UNAVAILABLE else None

        lost = await poll(answered, timeout_s=10, what="replica a answering again")
        assert (lost.code, lost.reason) == (grpc.StatusCode.NOT_FOUND, SESSION_NOT_FOUND), lost

        # A replica no longer listed: the same, and nothing is sent anywhere.
        unlisted = await refusal(browser.read_page(person, "s-1@127.0.0.1:9"))
        assert (unlisted.code, unlisted.reason) == (grpc.StatusCode.NOT_FOUND, SESSION_NOT_FOUND)

        # A task's sessions are closed on every replica.
        again_on_a = await browser.open_session(person, task_id)
        assert again_on_a.endswith(f"@{a.address}")
        await browser.close_task_sessions(person, task_id)
        assert await sessions_on(a, service_token, person) == set()
        assert await sessions_on(b, service_token, person) == set()
    finally:
        await browser.close()
