"""Two claims replicas on one database, called through one channel the way
every peer calls a service (nodkit.client: gRPC's round_robin over the
replicas an address names). Calls reach both; a replica killed with
SIGKILL is left out and the calls go on at the other; a claim cut off with
it is "may have happened", never resent by the channel, and the caller's
own resend is answered from the record: the claim granted once, its
secret never sent again. A rolling restart (each replica stopped with
SIGTERM and started again) under a claim load grants each claim once.
Counted in each replica's /metrics and in the claims table."""

import asyncio
import signal
import uuid

import grpc
import pytest

from nod.claims.v1 import claims_pb2 as pb
from nod.claims.v1 import claims_pb2_grpc
from nodkit.client import NodRpcError, open_channel
from nodkit.peers import retry_reads_config
from nodtest.claims import put_login
from nodtest.metrics import scrape
from nodtest.processes import ServiceProcess, free_port, wait_until_serving
from nodtest.storms import StormTally

from .support import ClaimCaller, claim_request, live_holder

PUT_ITEM = "/nod.claims.v1.VaultService/PutItem"
CALL_TIMEOUT_S = 20


class Replica:
    def __init__(self, name: str, env: dict[str, str], log_dir) -> None:
        self.address = f"127.0.0.1:{free_port()}"
        self.metrics = f"127.0.0.1:{free_port()}"
        self.process = ServiceProcess(
            "nod_claims",
            {
                **env,
                "NOD_CLAIMS_LISTEN": self.address,
                "NOD_CLAIMS_METRICS_LISTEN": self.metrics,
                "NOD_INSTANCE_ID": name,
            },
            log_dir / f"{name}.log",
        )

    async def put_items_served(self) -> float:
        return (await scrape(self.metrics)).total("nod_rpc_calls_total", method=PUT_ITEM)


@pytest.fixture
async def two_replicas(claims_migrated, service_env, tmp_path):
    """start(**env of the first) -> (replica a, replica b, one channel to both)."""
    started: list[Replica] = []
    channels: list[grpc.aio.Channel] = []

    async def start(**first_env: str):
        suffix = uuid.uuid4().hex[:6]
        a = Replica(f"claims-a-{suffix}", {**service_env, **first_env}, tmp_path)
        b = Replica(f"claims-b-{suffix}", service_env, tmp_path)
        for replica in (a, b):
            replica.process.start()
            started.append(replica)
        for replica in (a, b):
            await wait_until_serving(replica.address, timeout_s=60)
        config = retry_reads_config(pb.DESCRIPTOR.services_by_name.values())
        channel = open_channel(f"{a.address},{b.address}", service_config=config)
        channels.append(channel)
        # Both connected before the first call, so round_robin has both to pick from.
        await asyncio.wait_for(channel.channel_ready(), 30)
        return a, b, channel

    yield start
    for channel in channels:
        await channel.close()
    for replica in started:
        replica.process.stop()


async def put(vault, meta, request_id: str) -> pb.VaultItem:
    request = pb.PutItemRequest(
        item=pb.VaultItem(
            kind=pb.ENTRY_KIND_SAVED_LOGIN,
            label="shop",
            origin="https://shop.example",
            fields={"username": "ada@example.com", "password": "replicated-pw"},
        ),
        request_id=request_id,
    )
    for attempt in range(5):
        try:
            return (await vault.PutItem(request, metadata=meta, timeout=CALL_TIMEOUT_S)).item
        except grpc.aio.AioRpcError as raw:
            # Cut off with the killed replica: may have happened, so the caller
            # sends the same request (its request_id finds the first record).
            if not NodRpcError(raw).may_have_happened or attempt == 4:
                raise
            await asyncio.sleep(0.2)
    raise AssertionError("unreachable")


async def count_items(db, person: str) -> int:
    found = await db.execute("SELECT count(*) FROM claims.vault_items WHERE owner = %s", (person,))
    return (await found.fetchone())[0]


async def test_calls_spread_over_both_replicas_and_go_on_when_one_is_killed(
    two_replicas, as_person, person, db
):
    a, b, channel = await two_replicas()
    vault = claims_pb2_grpc.VaultServiceStub(channel)

    before = [await put(vault, as_person, f"req-{uuid.uuid4().hex}") for _ in range(20)]
    on_a, on_b = await a.put_items_served(), await b.put_items_served()
    assert on_a + on_b == 20 and on_a >= 5 and on_b >= 5, (on_a, on_b)

    a.process.kill(signal.SIGKILL)
    after = [await put(vault, as_person, f"req-{uuid.uuid4().hex}") for _ in range(20)]

    assert len({item.id for item in before + after}) == 40
    assert await count_items(db, person) == 40
    assert await b.put_items_served() >= on_b + 20


async def test_a_claim_cut_off_with_its_replica_is_answered_from_the_record_once(
    two_replicas, as_person, db
):
    # Replica a commits each claim, then hangs before its reply leaves.
    a, _b, channel = await two_replicas(NOD_FAULTS="claims.reply_sending=hang")
    claims = claims_pb2_grpc.ClaimsServiceStub(channel)
    vault = claims_pb2_grpc.VaultServiceStub(channel)
    holder = await live_holder(claims, as_person)
    items = [await put_login(vault, as_person) for _ in range(4)]
    requests = [claim_request(item, holder) for item in items]

    async def claim(request):
        try:
            return await claims.Claim(request, metadata=as_person, timeout=CALL_TIMEOUT_S)
        except grpc.aio.AioRpcError as raw:
            return NodRpcError(raw)

    calls = [asyncio.ensure_future(claim(request)) for request in requests]
    # Round robin sends half of them to a, where they hang after the commit.
    done, hung = await asyncio.wait(calls, timeout=10)
    assert len(done) == 2 and len(hung) == 2, (len(done), len(hung))
    a.process.kill(signal.SIGKILL)
    answers = await asyncio.gather(*calls)

    cut_off = [i for i, answer in enumerate(answers) if isinstance(answer, NodRpcError)]
    assert len(cut_off) == 2, answers
    for i in cut_off:
        error = answers[i]
        assert error.code == grpc.StatusCode.UNAVAILABLE and error.may_have_happened, error
        # The caller's resend reaches b, which answers from a's committed record.
        resent = await claims.Claim(requests[i], metadata=as_person, timeout=CALL_TIMEOUT_S)
        assert not resent.granted and dict(resent.secret_fields) == {}
        assert resent.claim.holder == holder and resent.claim.state == pb.CLAIM_STATE_RUNNING
    for i in set(range(4)) - set(cut_off):
        assert answers[i].granted and answers[i].secret_fields

    operation_ids = [request.operation_id for request in requests]
    found = await db.execute(
        "SELECT count(*), count(DISTINCT operation_id) FROM claims.claims"
        " WHERE operation_id = ANY(%s)",
        (operation_ids,),
    )
    assert await found.fetchone() == (4, 4)


async def test_a_rolling_restart_under_load_grants_each_claim_once(two_replicas, as_person, db):
    """Each replica in turn stops (SIGTERM: NOT_SERVING, calls under way
    finish) and starts again while callers claim through the one channel."""
    a, b, channel = await two_replicas()
    claims = claims_pb2_grpc.ClaimsServiceStub(channel)
    vault = claims_pb2_grpc.VaultServiceStub(channel)
    tally = StormTally("claims.Claim over a rolling restart")
    holder = await live_holder(claims, as_person)
    item = await put_login(vault, as_person)
    claims_caller = ClaimCaller(claims, claims, holder, as_person, tally)
    operation_ids: list[str] = []
    restarted = asyncio.Event()

    async def one_claim() -> None:
        request = claim_request(item, holder)
        operation_ids.append(request.operation_id)
        if (reply := await claims_caller.claim(request)) is not None:
            await claims_caller.end(reply)

    async def caller() -> None:
        while not restarted.is_set():
            tally.operations += 1
            await one_claim()

    async def roll() -> None:
        for replica in (a, b):
            await asyncio.sleep(1.0)
            assert replica.process.kill(signal.SIGTERM) == 0, replica.process.log_text()[-2000:]
            await asyncio.sleep(0.5)  # calls go on at the other one meanwhile
            replica.process.start()
            await wait_until_serving(replica.address, timeout_s=60)
        await asyncio.sleep(1.0)
        restarted.set()

    await asyncio.gather(roll(), *(caller() for _ in range(4)))

    found = await db.execute(
        "SELECT count(*), count(DISTINCT operation_id),"
        " count(*) FILTER (WHERE state = 'uncertain'),"
        " count(*) FILTER (WHERE state = 'running')"
        " FROM claims.claims WHERE operation_id = ANY(%s)",
        (operation_ids,),
    )
    claimed, distinct, uncertain, running = await found.fetchone()
    tally.duplicates = claims_caller.duplicates
    tally.uncertain, tally.running_left = uncertain, running
    tally.report()
    assert tally.duplicates == 0 and tally.wrong_answers == []
    assert claimed == distinct == tally.operations
    assert running == 0
    assert len(claims_caller.secrets_by_operation) + uncertain == tally.operations
