"""The gateway's records that only grow are pruned on a schedule: the real
app (its lifespan starts the loop) against the real database, with a short
interval. Rows older than their keep go, newer ones stay, and the sign-in
limit still counts every failure inside its window."""

import asyncio
import json
import re
import time
import uuid

import httpx
import pydantic
import pytest

from nod_gateway import MIGRATIONS
from nod_gateway.app import create_app
from nod_gateway.people import passwords, store
from nod_gateway.settings import GatewaySettings
from nodkit.db import create_engine

# Generous: other test runs share this machine's two cores.
DEADLINE_S = 60.0
KEEP_ATTEMPTS_S = 3600
KEEP_EXPIRED_SESSIONS_S = 600
WINDOW_S = 900


def settings_for(database_url, service_token) -> GatewaySettings:
    return GatewaySettings(
        database_url=database_url,
        service_token=service_token,
        sign_in_window_s=WINDOW_S,
        sign_in_failures=5,
        sign_in_attempts_keep_s=KEEP_ATTEMPTS_S,
        expired_sessions_keep_s=KEEP_EXPIRED_SESSIONS_S,
        prune_interval_s=0.2,
        # Smaller than what is to be pruned: a round takes several batches.
        prune_batch=2,
    )


async def add_attempt(db, name: str, seconds_ago: float, *, succeeded: bool = False) -> None:
    await db.execute(
        "INSERT INTO gateway.sign_in_attempts (name, address, succeeded, at)"
        " VALUES (%s, '192.0.2.7', %s, now() - make_interval(secs => %s))",
        (name, succeeded, seconds_ago),
    )


async def add_session(db, person: str, expired_s_ago: float) -> bytes:
    token_hash = uuid.uuid4().bytes
    await db.execute(
        "INSERT INTO gateway.sessions (token_hash, person, csrf_token, expires_at)"
        " VALUES (%s, %s, 'csrf', now() - make_interval(secs => %s))",
        (token_hash, person, expired_s_ago),
    )
    return token_hash


async def attempts_of(db, name: str) -> int:
    rows = await db.execute(
        "SELECT count(*) FROM gateway.sign_in_attempts WHERE name = %s", (name,)
    )
    return (await rows.fetchone())[0]


async def session_kept(db, token_hash: bytes) -> bool:
    rows = await db.execute("SELECT 1 FROM gateway.sessions WHERE token_hash = %s", (token_hash,))
    return await rows.fetchone() is not None


async def until(check, what: str) -> None:
    deadline = time.monotonic() + DEADLINE_S
    while not await check():
        assert time.monotonic() < deadline, f"not within {DEADLINE_S:g} s: {what}"
        await asyncio.sleep(0.1)


async def add_person(database_url, service_token) -> str:
    """A new person: their id, which their sessions name."""
    name = f"pia-{uuid.uuid4().hex[:6]}"
    engine = create_engine(
        GatewaySettings(database_url=database_url, service_token=service_token), "gateway"
    )
    try:
        hashed = await asyncio.to_thread(passwords.hash_password, "a long password 1")
        await store.add_person(engine, name, hashed, replace=True)
        person = await store.person_id_of(engine, name)
    finally:
        await engine.dispose()
    assert person is not None
    return person


def pruned_lines(log_tee) -> list[dict]:
    lines = [json.loads(line) for line in log_tee.lines if '"gateway.pruned"' in line]
    return [line for line in lines if line.get("event") == "gateway.pruned"]


async def test_rows_past_their_keep_are_deleted_and_newer_ones_kept(
    database_url, service_token, db, log_tee
):
    MIGRATIONS.upgrade(database_url)
    person = await add_person(database_url, service_token)
    old, recent, outside_window = (f"{kind}-{uuid.uuid4().hex[:6]}" for kind in "orw")
    for _ in range(5):
        await add_attempt(db, old, KEEP_ATTEMPTS_S + 60)
    await add_attempt(db, recent, 5)
    await add_attempt(db, recent, 10, succeeded=True)
    # Past the window the limit counts in, but inside the keep: kept.
    await add_attempt(db, outside_window, WINDOW_S + 600)
    long_expired = await add_session(db, person, KEEP_EXPIRED_SESSIONS_S + 60)
    lately_expired = await add_session(db, person, 60)
    live = await add_session(db, person, -3600)
    logged_before = len(pruned_lines(log_tee))

    app = create_app(settings_for(database_url, service_token))
    async with app.router.lifespan_context(app):

        async def old_rows_gone() -> bool:
            return await attempts_of(db, old) == 0 and not await session_kept(db, long_expired)

        def logged() -> list[dict]:
            return pruned_lines(log_tee)[logged_before:]

        async def round_logged() -> bool:
            # A round logs once every table is pruned: after the last delete.
            return sum(line.get("sessions", 0) for line in logged()) >= 1

        await until(old_rows_gone, "the rows past their keep deleted")
        await until(round_logged, "the round that deleted them logged")

    assert await attempts_of(db, recent) == 2
    assert await attempts_of(db, outside_window) == 1
    assert await session_kept(db, lately_expired)
    assert await session_kept(db, live)
    assert sum(line.get("sign_in_attempts", 0) for line in logged()) == 5
    assert sum(line.get("sessions", 0) for line in logged()) == 1
    assert all(old not in json.dumps(line) for line in logged()), "names stay out of the log"


async def test_the_sign_in_limit_still_counts_every_recent_failure(database_url, service_token, db):
    MIGRATIONS.upgrade(database_url)
    name = f"ivy-{uuid.uuid4().hex[:6]}"
    app = create_app(settings_for(database_url, service_token))
    transport = httpx.ASGITransport(app=app)
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(transport=transport, base_url="http://gateway.test") as client,
    ):

        async def sign_in() -> httpx.Response:
            form = await client.get("/signin")
            binding = re.search(r'name="binding" value="([^"]+)"', form.text).group(1)  # type: ignore[union-attr]
            data = {"binding": binding, "name": name, "password": "not the password"}
            return await client.post("/signin", data=data)

        for _ in range(5):
            assert (await sign_in()).status_code == 401
        # A round of pruning has run since the failures: a marker row past
        # its keep, added after them, is gone.
        marker = f"old-{uuid.uuid4().hex[:6]}"
        await add_attempt(db, marker, KEEP_ATTEMPTS_S + 60)
        await until(lambda: _gone(db, marker), "a pruning round after the failures")

        assert await attempts_of(db, name) == 5
        limited = await sign_in()
        assert limited.status_code == 429
        assert "Too many tries" in limited.text


async def _gone(db, name: str) -> bool:
    return await attempts_of(db, name) == 0


def test_the_attempts_are_kept_at_least_as_long_as_the_window_they_are_counted_in(
    service_token,
):
    with pytest.raises(pydantic.ValidationError, match="NOD_GATEWAY_SIGN_IN_ATTEMPTS_KEEP_S"):
        GatewaySettings(
            service_token=service_token, sign_in_window_s=900, sign_in_attempts_keep_s=899
        )
    kept = GatewaySettings(
        service_token=service_token, sign_in_window_s=900, sign_in_attempts_keep_s=900
    )
    assert kept.sign_in_attempts_keep_s == 900
