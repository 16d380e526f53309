"""A database that stops answering without closing anything (frozen): no
call hangs for the outage, health turns NOT_SERVING while it lasts and comes
back by itself, and nothing is left RUNNING by a cut-off call."""

import asyncio
import time

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc
from sqlalchemy.engine import make_url

from nod.claims.v1 import claims_pb2 as pb
from nodkit.client import open_channel
from nodtest.browser import poll
from nodtest.claims import put_login
from nodtest.proxy import FreezableProxy
from nodtest.rpc import expect_error

CALL_LIMIT_S = 2.0


async def health_of(address: str) -> int:
    async with open_channel(address) as channel:
        reply = await health_pb2_grpc.HealthStub(channel).Check(
            health_pb2.HealthCheckRequest(), timeout=2
        )
        return reply.status


async def test_a_frozen_database_hangs_no_call_and_turns_health_off_then_on(
    claims_with, claims_migrated, as_person
):
    target = make_url(claims_migrated)
    proxy = await FreezableProxy(target.host or "127.0.0.1", target.port or 5432).start()
    try:
        address, _, vault = await claims_with(
            database_url=proxy.url_for(claims_migrated),
            db_call_timeout_s=CALL_LIMIT_S,
            health_probe_s=0.3,
        )
        item = await put_login(vault, as_person)
        assert await health_of(address) == health_pb2.HealthCheckResponse.SERVING

        proxy.freeze()
        started = time.monotonic()
        await expect_error(
            vault.ListItems(pb.ListItemsRequest(), metadata=as_person, timeout=1.0),
            grpc.StatusCode.DEADLINE_EXCEEDED,
        )
        assert time.monotonic() - started < 2.0
        # Without a deadline of its own, a call ends within the service's own limit
        # (plus the driver's bounded clean-up of the cut-off statement).
        started = time.monotonic()
        await expect_error(
            vault.PutItem(pb.PutItemRequest(item=item), metadata=as_person),
            grpc.StatusCode.DEADLINE_EXCEEDED,
            reason="DATABASE_TIMEOUT",
        )
        assert time.monotonic() - started < CALL_LIMIT_S + 15
        assert await health_of(address) == health_pb2.HealthCheckResponse.NOT_SERVING

        proxy.thaw()

        async def serving_again():
            return await health_of(address) == health_pb2.HealthCheckResponse.SERVING

        await poll(serving_again, timeout_s=30, what="health to come back")
        items = await vault.ListItems(pb.ListItemsRequest(), metadata=as_person, timeout=10)
        assert [i.id for i in items.items] == [item.id]
    finally:
        proxy.thaw()
        await proxy.close()
        await asyncio.sleep(0)
