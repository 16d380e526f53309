"""A plain gRPC echo on the same server stack as every nod service (nodkit's
server, interceptors, health, reflection, logging), for the benchmark to
compare against. Raw bytes in, the same bytes out; no database."""

import gc
import sys

import grpc
import uvloop
from pydantic import SecretStr

from nodkit.logging import configure_logging
from nodkit.server import ServiceDefinition, create_server

SERVICE = "nod.bench.v1.EchoService"


async def echo(request: bytes, context) -> bytes:
    return request


def register(server: grpc.aio.Server) -> None:
    handler = grpc.method_handlers_generic_handler(
        SERVICE, {"Echo": grpc.unary_unary_rpc_method_handler(echo)}
    )
    server.add_generic_rpc_handlers((handler,))


async def main(listen: str, token: str) -> None:
    configure_logging("echo")
    gc.freeze()  # as nodkit.cli does for every service
    running = await create_server(
        ServiceDefinition("echo", [SERVICE], register), token=SecretStr(token), listen=listen
    )
    await running.mark_serving()
    await running.server.wait_for_termination()


if __name__ == "__main__":
    uvloop.run(main(sys.argv[1], sys.argv[2]))
