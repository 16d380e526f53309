"""G12 with real processes: the claims service killed with SIGKILL and
started again. A live runner's claims survive untouched; a dead runner's
(lease expired) end UNCERTAIN at boot or by the sweeper; a restarted runner's
end UNCERTAIN through ReleaseHolder; none is ever granted again."""

import asyncio
import contextlib
import time

import pytest

from nod.claims.v1 import claims_pb2 as pb
from nod.claims.v1 import claims_pb2_grpc
from nodkit.client import open_channel
from nodtest.claims import put_login
from nodtest.processes import ServiceProcess, free_port, wait_until_serving

from .support import claim_request

LEASE_TTL_S = 12.0


@pytest.fixture
def claims_process(claims_migrated, service_env, tmp_path):
    port = free_port()
    processes = []

    def start(**settings) -> ServiceProcess:
        env = {
            **service_env,
            "NOD_CLAIMS_LISTEN": f"127.0.0.1:{port}",
            "NOD_INSTANCE_ID": "claims-restart-test",
            "NOD_CLAIMS_LEASE_TTL_S": str(LEASE_TTL_S),
            **settings,
        }
        process = ServiceProcess("nod_claims", env, tmp_path / "claims.log")
        process.start()
        processes.append(process)
        return process

    start.address = f"127.0.0.1:{port}"
    yield start
    for process in processes:
        process.stop()


async def renew_forever(stub, holder, meta):
    while True:
        with contextlib.suppress(Exception):
            await stub.RenewHolder(pb.RenewHolderRequest(holder=holder), metadata=meta, timeout=1)
        await asyncio.sleep(0.3)


async def states(stub, meta, claims) -> set[int]:
    replies = [
        await stub.GetClaim(pb.GetClaimRequest(claim_id=c.id), metadata=meta) for c in claims
    ]
    return {r.claim.state for r in replies}


async def test_sigkill_and_restart(claims_process, as_person):
    first = claims_process(NOD_CLAIMS_SWEEP_INTERVAL_S="3600")
    await wait_until_serving(claims_process.address)
    channel = open_channel(claims_process.address)
    stub = claims_pb2_grpc.ClaimsServiceStub(channel)
    vault = claims_pb2_grpc.VaultServiceStub(channel)
    login = await put_login(vault, as_person)

    started = time.monotonic()
    for holder in ("runner-live", "runner-dead", "runner-restarting"):
        await stub.RenewHolder(pb.RenewHolderRequest(holder=holder), metadata=as_person)
    renewing = [
        asyncio.ensure_future(renew_forever(stub, holder, as_person))
        for holder in ("runner-live", "runner-restarting")
    ]
    made = {}
    for holder in ("runner-live", "runner-dead", "runner-restarting"):
        made[holder] = [
            (await stub.Claim(claim_request(login, holder), metadata=as_person)).claim
            for _ in range(3)
        ]

    # Kill a second before the dead runner's lease runs out and start again
    # once it has: the leases the live runners renewed until the kill then
    # have most of a lease left for the boot, slow as it is on a loaded host.
    await asyncio.sleep(max(0.0, LEASE_TTL_S - 1.0 - (time.monotonic() - started)))
    first.kill()
    assert first.process.returncode == -9
    await asyncio.sleep(max(0.0, LEASE_TTL_S + 0.3 - (time.monotonic() - started)))
    claims_process(NOD_CLAIMS_SWEEP_INTERVAL_S="3600")
    await wait_until_serving(claims_process.address)
    # A fresh channel: the old one is backing off after the kill.
    await channel.close()
    channel = open_channel(claims_process.address)
    stub = claims_pb2_grpc.ClaimsServiceStub(channel)
    for task in renewing:
        task.cancel()
    renewing = [asyncio.ensure_future(renew_forever(stub, "runner-live", as_person))]

    try:
        # The boot reconcile ended the dead runner's claims before SERVING.
        assert await states(stub, as_person, made["runner-dead"]) == {pb.CLAIM_STATE_UNCERTAIN}
        assert await states(stub, as_person, made["runner-live"]) == {pb.CLAIM_STATE_RUNNING}
        assert await states(stub, as_person, made["runner-restarting"]) == {pb.CLAIM_STATE_RUNNING}

        # The restarted runner boots and releases what it held.
        released = await stub.ReleaseHolder(
            pb.ReleaseHolderRequest(holder="runner-restarting", reason="runner restarted"),
            metadata=as_person,
        )
        assert released.released == len(made["runner-restarting"])
        assert await states(stub, as_person, made["runner-restarting"]) == {
            pb.CLAIM_STATE_UNCERTAIN
        }
        assert await states(stub, as_person, made["runner-live"]) == {pb.CLAIM_STATE_RUNNING}

        # None of them is ever granted again.
        for claims in made.values():
            for claim in claims:
                again = await stub.Claim(
                    claim_request(login, claim.holder, operation_id=claim.operation_id),
                    metadata=as_person,
                )
                assert not again.granted and not again.secret_fields

        events = await stub.ListClaimEvents(
            pb.ListClaimEventsRequest(claim_id=made["runner-dead"][0].id), metadata=as_person
        )
        # Swept by a claims instance: this one's boot, or another live one's
        # sweep when the session runs more than one on the database.
        actors = [e.actor for e in events.events]
        assert len(actors) == 2 and actors[0] == "runner-dead"
        assert actors[1].startswith("sweeper:")
        assert "lease" in events.events[-1].reason
    finally:
        for task in renewing:
            task.cancel()
        await channel.close()


async def test_the_sweeper_ends_claims_of_a_runner_that_stops_renewing(claims_process, as_person):
    claims_process(NOD_CLAIMS_SWEEP_INTERVAL_S="0.2", NOD_CLAIMS_LEASE_TTL_S="1")
    await wait_until_serving(claims_process.address)
    async with open_channel(claims_process.address) as channel:
        stub = claims_pb2_grpc.ClaimsServiceStub(channel)
        login = await put_login(claims_pb2_grpc.VaultServiceStub(channel), as_person)
        await stub.RenewHolder(pb.RenewHolderRequest(holder="runner-gone"), metadata=as_person)
        claim = (await stub.Claim(claim_request(login, "runner-gone"), metadata=as_person)).claim
        deadline = time.monotonic() + 10
        while await states(stub, as_person, [claim]) != {pb.CLAIM_STATE_UNCERTAIN}:
            assert time.monotonic() < deadline, "the sweeper never ended the claim"
            await asyncio.sleep(0.1)
        # The runner comes back: it can't finish what it no longer holds.
        reply = await stub.RenewHolder(
            pb.RenewHolderRequest(holder="runner-gone"), metadata=as_person
        )
        assert reply.running_claims == 0
        with pytest.raises(Exception) as refused:
            await stub.MarkSubmitted(
                pb.MarkSubmittedRequest(claim_id=claim.id, holder="runner-gone"), metadata=as_person
            )
        assert "already uncertain" in str(refused.value)
