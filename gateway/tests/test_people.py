"""The gateway's own state: who may sign in and their sessions, in its own
schema, made by its migrations."""

import hashlib

import sqlalchemy as sa

from nod_gateway import MIGRATIONS, SCHEMA
from nod_gateway.people import passwords, store
from nod_gateway.people.models import metadata, sessions
from nod_gateway.settings import GatewaySettings
from nodkit.db import create_engine
from nodtest.database import migration_drift


def test_migrations_match_the_models(database_url):
    MIGRATIONS.upgrade(database_url)
    assert migration_drift(database_url, metadata, SCHEMA) == []


async def test_a_session_is_found_by_its_token_and_only_its_hash_is_kept(
    database_url, service_token
):
    MIGRATIONS.upgrade(database_url)
    engine = create_engine(
        GatewaySettings(database_url=database_url, service_token=service_token), SCHEMA
    )
    try:
        await store.add_person(
            engine, "kim", passwords.hash_password("a long password 1"), replace=True
        )
        token, opened = await store.open_session(engine, "kim", ttl_s=60)
        assert await store.session_for(engine, token) == opened
        assert await store.session_for(engine, token + "x") is None
        async with engine.connect() as conn:
            kept = (await conn.execute(sa.select(sessions.c.token_hash))).scalars().all()
        assert hashlib.sha256(token.encode()).digest() in kept
        assert all(token.encode() not in row for row in kept)
        await store.close_session(engine, token)
        assert await store.session_for(engine, token) is None

        expired, _ = await store.open_session(engine, "kim", ttl_s=-1)
        assert await store.session_for(engine, expired) is None
    finally:
        await engine.dispose()


async def test_a_password_matches_only_itself_and_an_unknown_name_matches_nothing():
    hashed = passwords.hash_password("correct horse battery")
    assert hashed.startswith("$argon2id$")
    assert await passwords.matches(hashed, "correct horse battery")
    assert not await passwords.matches(hashed, "correct horse battery ")
    assert not await passwords.matches(None, "correct horse battery")
    assert not await passwords.matches("not a hash", "anything")


def test_the_demo_tasks_offered_are_the_ones_the_scripted_planner_knows():
    from nod_gateway.routes.tasks import DEMO_TASKS
    from nod_tasks.adapters.models.scripted import DEMO_TASKS as SCRIPTED

    assert list(DEMO_TASKS) == list(SCRIPTED.values())
