"""A plain gRPC echo on the same server stack as every nod service (nodkit's
server, interceptors, health, reflection, logging), for the benchmark to
compare against. Raw bytes in, the same bytes out; no database."""

import gc
import sys

import grpc
import uvloop
from pydantic import SecretStr

from nodkit import service
from nodkit.logging import configure_logging
from nodkit.settings import ServiceSettings

SERVICE = "nod.bench.v1.EchoService"


async def echo(request: bytes, context) -> bytes:
    return request


class EchoDescriptor:
    full_name = SERVICE


def register(_servicer: object, server: grpc.aio.Server) -> None:
    handler = grpc.method_handlers_generic_handler(
        SERVICE, {"Echo": grpc.unary_unary_rpc_method_handler(echo)}
    )
    server.add_generic_rpc_handlers((handler,))


async def main(listen: str, token: str) -> None:
    configure_logging("echo")
    settings = ServiceSettings(service_token=SecretStr(token), listen=listen)
    echo_service = service.Service(
        "echo",
        [service.GrpcService(EchoDescriptor(), register, None)],  # type: ignore[arg-type]
    )
    gc.freeze()  # as nodkit.cli does for every service
    await service.serve(echo_service, settings)


if __name__ == "__main__":
    uvloop.run(main(sys.argv[1], sys.argv[2]))
