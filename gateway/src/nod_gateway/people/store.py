"""The people who may sign in and their sessions. Tokens are random; only
their SHA-256 is stored."""

import datetime as dt
import hashlib
import secrets
from dataclasses import dataclass

import sqlalchemy as sa
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncEngine

from nod_gateway.people.models import people, sessions, sign_in_attempts


@dataclass(frozen=True)
class Session:
    person: str
    csrf_token: str


def _digest(token: str) -> bytes:
    return hashlib.sha256(token.encode()).digest()


def _now() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


async def add_person(engine: AsyncEngine, name: str, password_hash: str, *, replace: bool) -> bool:
    """True when the person was added (or, with replace, their password set)."""
    statement = insert(people).values(name=name, password_hash=password_hash)
    if replace:
        statement = statement.on_conflict_do_update(
            index_elements=[people.c.name], set_={"password_hash": password_hash}
        )
    else:
        statement = statement.on_conflict_do_nothing(index_elements=[people.c.name])
    async with engine.begin() as conn:
        return (await conn.execute(statement)).rowcount == 1


async def password_hash_of(engine: AsyncEngine, name: str) -> str | None:
    async with engine.connect() as conn:
        return await conn.scalar(sa.select(people.c.password_hash).where(people.c.name == name))


async def recent_failures(engine: AsyncEngine, name: str, address: str, window_s: int):
    """(failures for this name, failures from this address) within the window."""
    since = _now() - dt.timedelta(seconds=window_s)
    failed = sa.and_(~sign_in_attempts.c.succeeded, sign_in_attempts.c.at > since)

    def count(condition):
        return sa.select(sa.func.count()).where(failed, condition).scalar_subquery()

    async with engine.connect() as conn:
        row = (
            await conn.execute(
                sa.select(
                    count(sign_in_attempts.c.name == name),
                    count(sign_in_attempts.c.address == address),
                )
            )
        ).one()
    return row[0], row[1]


async def record_attempt(engine: AsyncEngine, name: str, address: str, succeeded: bool) -> None:
    async with engine.begin() as conn:
        await conn.execute(
            sign_in_attempts.insert().values(name=name, address=address, succeeded=succeeded)
        )


async def open_session(engine: AsyncEngine, person: str, ttl_s: int) -> tuple[str, Session]:
    token = secrets.token_urlsafe(32)
    csrf_token = secrets.token_urlsafe(32)
    async with engine.begin() as conn:
        await conn.execute(
            sessions.insert().values(
                token_hash=_digest(token),
                person=person,
                csrf_token=csrf_token,
                expires_at=_now() + dt.timedelta(seconds=ttl_s),
            )
        )
        # Old sessions go as new ones come: the table never grows without end.
        await conn.execute(sessions.delete().where(sessions.c.expires_at < _now()))
    return token, Session(person, csrf_token)


async def session_for(engine: AsyncEngine, token: str) -> Session | None:
    async with engine.connect() as conn:
        row = (
            await conn.execute(
                sa.select(sessions.c.person, sessions.c.csrf_token).where(
                    sessions.c.token_hash == _digest(token), sessions.c.expires_at > _now()
                )
            )
        ).first()
    return Session(row.person, row.csrf_token) if row else None


async def close_session(engine: AsyncEngine, token: str) -> None:
    async with engine.begin() as conn:
        await conn.execute(sessions.delete().where(sessions.c.token_hash == _digest(token)))
