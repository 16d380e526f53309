"""A plain gRPC echo on the same server stack as every nod service (nodkit's
server, interceptors, health, reflection, logging), for the benchmark to
compare against. Raw bytes in, the same bytes out; no database.

Given a database, it also answers EchoInsert: the same echo after one raw
INSERT ... ON CONFLICT on a psycopg pool in autocommit, which is the least
a call that records one row can cost on this stack (the Claim figures'
floor)."""

import gc
import os
import sys

import grpc
import psycopg_pool
import uvloop
from pydantic import SecretStr

from nodkit import service
from nodkit.logging import configure_logging
from nodkit.settings import ServiceSettings

SERVICE = "nod.bench.v1.EchoService"
INSERT = (
    "INSERT INTO bench_inserts (op, holder, state) VALUES (%s, 'bench', 'running')"
    " ON CONFLICT (op) DO NOTHING"
)


async def echo(request: bytes, context) -> bytes:
    return request


class EchoDescriptor:
    full_name = SERVICE


def registrar(pool: psycopg_pool.AsyncConnectionPool | None):
    async def echo_insert(request: bytes, context) -> bytes:
        assert pool is not None
        async with pool.connection() as conn:
            await conn.execute(INSERT, (os.urandom(16).hex(),))
        return request

    def register(_servicer: object, server: grpc.aio.Server) -> None:
        methods = {"Echo": grpc.unary_unary_rpc_method_handler(echo)}
        if pool is not None:
            methods["EchoInsert"] = grpc.unary_unary_rpc_method_handler(echo_insert)
        server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(SERVICE, methods),))

    return register


async def main(listen: str, token: str, database_url: str | None) -> None:
    configure_logging("echo")
    pool = None
    if database_url:
        pool = psycopg_pool.AsyncConnectionPool(
            database_url, min_size=4, max_size=10, kwargs={"autocommit": True}, open=False
        )
        await pool.open(wait=True)
        async with pool.connection() as conn:
            await conn.execute(
                "CREATE TABLE IF NOT EXISTS bench_inserts"
                " (op text PRIMARY KEY, holder text, state text)"
            )
    settings = ServiceSettings(service_token=SecretStr(token), listen=listen)
    echo_service = service.Service(
        "echo",
        [service.GrpcService(EchoDescriptor(), registrar(pool), None)],  # type: ignore[arg-type]
    )
    gc.freeze()  # as nodkit.cli does for every service
    await service.serve(echo_service, settings)


if __name__ == "__main__":
    uvloop.run(main(sys.argv[1], sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else None))
