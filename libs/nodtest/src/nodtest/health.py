"""What a service's health answers over time, as a prober sees it."""

import asyncio

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from nodkit.client import open_channel


async def watch_health(
    address: str, seen: list[str], stop: asyncio.Event, every_s: float = 0.1
) -> None:
    """Every status health answers, in order, repeats left out (an error's
    code stands for a status: UNAVAILABLE while the process is gone)."""
    async with open_channel(address) as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        while not stop.is_set():
            try:
                reply = await stub.Check(health_pb2.HealthCheckRequest(), timeout=1)
                status = health_pb2.HealthCheckResponse.ServingStatus.Name(reply.status)
            except grpc.aio.AioRpcError as error:
                status = error.code().name
            if seen[-1:] != [status]:
                seen.append(status)
            await asyncio.sleep(every_s)
