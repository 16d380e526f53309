"""The gateway's own state: who may sign in and their sessions, in its own
schema, made by its migrations."""

import hashlib

import psycopg
import sqlalchemy as sa
from alembic import command

from nod_gateway import MIGRATIONS, SCHEMA
from nod_gateway.people import passwords, store
from nod_gateway.people.models import metadata, sessions
from nod_gateway.settings import GatewaySettings
from nodkit.db import create_engine
from nodkit.migrations import alembic_config
from nodtest.database import (
    create_test_database,
    drop_test_database,
    libpq_url,
    migration_drift,
)


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
        kim = await store.person_id_of(engine, "kim")
        assert kim is not None and kim != "kim"  # an id of its own, not the name
        token, opened = await store.open_session(engine, kim, "kim", ttl_s=60)
        assert (opened.person, opened.name) == (kim, "kim")
        assert await store.session_for(engine, token) == opened
        assert await store.session_for(engine, token + "x") is None
        async with engine.connect() as conn:
            kept = (await conn.execute(sa.select(sessions.c.token_hash))).scalars().all()
        assert hashlib.sha256(token.encode()).digest() in kept
        assert all(token.encode() not in row for row in kept)
        await store.close_session(engine, token)
        assert await store.session_for(engine, token) is None

        expired, _ = await store.open_session(engine, kim, "kim", ttl_s=-1)
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


async def test_people_from_before_ids_keep_their_name_as_id_and_their_sessions(service_token):
    """Migration 0005 on a store with people, sessions and a nudge in it:
    what they own in the services is under their name, so it stays theirs."""
    url = create_test_database()
    try:
        command.upgrade(alembic_config(MIGRATIONS.directory, url, SCHEMA), "0004")
        with psycopg.connect(libpq_url(url), autocommit=True) as conn:
            conn.execute("INSERT INTO gateway.people (name, password_hash) VALUES ('lee', 'x')")
            conn.execute(
                "INSERT INTO gateway.sessions (token_hash, person, csrf_token, expires_at)"
                " VALUES (%s, 'lee', 'csrf', now() + interval '1 hour')",
                (hashlib.sha256(b"lee's token").digest(),),
            )
            conn.execute(
                "INSERT INTO gateway.nudges (task_id, wait_id, person, instance_id)"
                " VALUES ('t', 'w', 'lee', 'gateway-1')"
            )
        MIGRATIONS.upgrade(url)
        engine = create_engine(
            GatewaySettings(database_url=url, service_token=service_token), SCHEMA
        )
        try:
            assert await store.person_id_of(engine, "lee") == "lee"
            session = await store.session_for(engine, "lee's token")
            assert session is not None and (session.person, session.name) == ("lee", "lee")
            await store.add_person(engine, "max", "x", replace=False)
            assert await store.person_id_of(engine, "max") not in (None, "max")
            # The release before ids, still running during the rollout,
            # adds people without one: the column's default gives it.
            async with engine.begin() as conn:
                await conn.execute(sa.text("INSERT INTO gateway.people VALUES ('old', 'x')"))
            assert await store.person_id_of(engine, "old") not in (None, "old")
            # Removing lee takes their session and nudge with them, by id.
            assert await store.remove_person(engine, "lee")
        finally:
            await engine.dispose()
        with psycopg.connect(libpq_url(url), autocommit=True) as conn:
            left = [
                conn.execute(f"SELECT count(*) FROM gateway.{table}").fetchone()[0]  # type: ignore[index]
                for table in ("sessions", "nudges")
            ]
        assert left == [0, 0]
    finally:
        drop_test_database(url)
