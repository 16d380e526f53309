"""The database's own guard against a stuck holder of a transaction: a
service's connection whose transaction sits idle past
NOD_DB_IDLE_IN_TRANSACTION_TIMEOUT_MS is ended by PostgreSQL, its work
rolled back and its locks freed, whatever the process holding it does (it
hung, or lost track of it). Seen from outside: another session's write to
the row it locked goes through, and the stuck one's work is gone."""

import asyncio

import psycopg
import pytest
import sqlalchemy as sa

from nodkit.db import create_engine
from nodkit.settings import ServiceSettings
from nodtest.database import libpq_url

IDLE_LIMIT_MS = 500


async def test_a_transaction_left_idle_is_ended_by_the_server_and_frees_its_locks(
    database_url, service_token
):
    settings = ServiceSettings(
        database_url=database_url,
        service_token=service_token,
        db_idle_in_transaction_timeout_ms=IDLE_LIMIT_MS,
    )
    async with await psycopg.AsyncConnection.connect(
        libpq_url(database_url), autocommit=True
    ) as other:
        await other.execute("CREATE TABLE IF NOT EXISTS public.guarded (id int PRIMARY KEY, n int)")
        await other.execute("INSERT INTO public.guarded VALUES (1, 0) ON CONFLICT DO NOTHING")
        engine = create_engine(settings, "public")
        try:
            # The client bounds it only after db_call_timeout_s (10 s): the
            # server's guard must end it long before.
            async with engine.connect() as conn:
                await conn.begin()
                await conn.execute(sa.text("UPDATE public.guarded SET n = 99 WHERE id = 1"))
                started = asyncio.get_running_loop().time()

                # Another session's write to the locked row waits for the
                # stuck transaction, then goes through once the server ended it.
                await other.execute("SET lock_timeout = '8s'")
                await other.execute("UPDATE public.guarded SET n = 1 WHERE id = 1")
                waited = asyncio.get_running_loop().time() - started
                assert waited < 5.0, f"the stuck transaction held its lock {waited:.1f} s"

                cursor = await other.execute("SELECT n FROM public.guarded WHERE id = 1")
                assert await cursor.fetchone() == (1,)  # the stuck one's 99 was rolled back
                with pytest.raises(sa.exc.DBAPIError, match="idle-in-transaction timeout"):
                    await conn.execute(sa.text("SELECT 1"))
                await conn.invalidate()
        finally:
            await engine.dispose()
