"""The people who may sign in and their sessions. Tokens are random; only
their SHA-256 is stored."""

import datetime as dt
import hashlib
import secrets
import uuid
from dataclasses import dataclass

import sqlalchemy as sa
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncEngine

from nod_gateway.people.models import nudges, people, sessions, sign_in_attempts

# How stale a session's last_seen_at may get: a page load writes it only when
# it is older than this, so reading pages does not write on every request.
SEEN_EVERY_S = 60
# How many hex digits of a session's token hash name it to the operator:
# enough to tell a person's sessions apart, and no token (only its SHA-256).
SESSION_ID_HEX = 12


@dataclass(frozen=True)
class Session:
    person: str  # their id: who the services know them as
    name: str  # what they signed in with, and are shown
    csrf_token: str


@dataclass(frozen=True)
class SignIn:
    """What signing in as a name checks, and who it makes the session for."""

    person: str
    password_hash: str


@dataclass(frozen=True)
class SessionSeen:
    """A session as the operator sees it: never its token."""

    id: str
    created_at: dt.datetime
    last_seen_at: dt.datetime
    expires_at: dt.datetime


@dataclass(frozen=True)
class Person:
    name: str
    id: str
    created_at: dt.datetime


def _digest(token: str) -> bytes:
    return hashlib.sha256(token.encode()).digest()


def _now() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


def new_person_id() -> str:
    """An id no person has had: random, never derived from the name."""
    return str(uuid.uuid4())


async def add_person(engine: AsyncEngine, name: str, password_hash: str, *, replace: bool) -> bool:
    """True when the person was added (or, with replace, their password set:
    they keep their id)."""
    statement = insert(people).values(name=name, id=new_person_id(), password_hash=password_hash)
    if replace:
        statement = statement.on_conflict_do_update(
            index_elements=[people.c.name], set_={"password_hash": password_hash}
        )
    else:
        statement = statement.on_conflict_do_nothing(index_elements=[people.c.name])
    # RETURNING, not rowcount: psycopg reports no rowcount (-1) for this
    # INSERT ... ON CONFLICT through SQLAlchemy, which read as "not added".
    async with engine.begin() as conn:
        return (await conn.execute(statement.returning(people.c.name))).first() is not None


async def sign_in_as(engine: AsyncEngine, name: str) -> SignIn | None:
    async with engine.connect() as conn:
        row = (
            await conn.execute(
                sa.select(people.c.id, people.c.password_hash).where(people.c.name == name)
            )
        ).first()
    return SignIn(row.id, row.password_hash) if row else None


async def person_id_of(engine: AsyncEngine, name: str) -> str | None:
    """The id of the person signing in as `name` now."""
    found = await person_named(engine, name)
    return found.id if found else None


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


async def open_session(
    engine: AsyncEngine, person: str, name: str, ttl_s: int
) -> tuple[str, Session]:
    """A session for the person with this id, who signed in as `name`."""
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
    return token, Session(person, name, csrf_token)


async def session_for(engine: AsyncEngine, token: str) -> Session | None:
    digest = _digest(token)
    async with engine.connect() as conn:
        row = (
            await conn.execute(
                sa.select(
                    sessions.c.person,
                    people.c.name,
                    sessions.c.csrf_token,
                    sessions.c.last_seen_at,
                )
                .join(people, people.c.id == sessions.c.person)
                .where(sessions.c.token_hash == digest, sessions.c.expires_at > _now())
            )
        ).first()
        if row is None:
            return None
        if row.last_seen_at < _now() - dt.timedelta(seconds=SEEN_EVERY_S):
            await conn.execute(
                sessions.update()
                .where(sessions.c.token_hash == digest)
                .values(last_seen_at=sa.func.now())
            )
            await conn.commit()
    return Session(row.person, row.name, row.csrf_token)


async def close_session(engine: AsyncEngine, token: str) -> None:
    async with engine.begin() as conn:
        await conn.execute(sessions.delete().where(sessions.c.token_hash == _digest(token)))


# --- nudges (nudges.py) ---------------------------------------------------


async def nudge_address_of(engine: AsyncEngine, person: str) -> str | None:
    async with engine.connect() as conn:
        return await conn.scalar(sa.select(people.c.nudge_address).where(people.c.id == person))


async def set_nudge_address(engine: AsyncEngine, person: str, address: str | None) -> None:
    """The person's address for nudges; None removes it."""
    async with engine.begin() as conn:
        await conn.execute(
            people.update().where(people.c.id == person).values(nudge_address=address)
        )


async def saw_page(engine: AsyncEngine, person: str) -> None:
    """A task page of the person's is open now. Written only for a person
    with an address: nobody else is nudged."""
    async with engine.begin() as conn:
        await conn.execute(
            people.update()
            .where(people.c.id == person, people.c.nudge_address.is_not(None))
            .values(page_seen_at=sa.func.now())
        )


def _away(delay_s: float):
    """No page of the person's seen open within the delay."""
    since = sa.func.now() - dt.timedelta(seconds=delay_s)
    return sa.or_(people.c.page_seen_at.is_(None), people.c.page_seen_at < since)


async def away_with_address(engine: AsyncEngine, delay_s: float) -> list[tuple[str, str]]:
    """(person, address) of everyone with an address and no page seen
    open within the delay."""
    async with engine.connect() as conn:
        rows = await conn.execute(
            sa.select(people.c.id, people.c.nudge_address)
            .where(people.c.nudge_address.is_not(None), _away(delay_s))
            .order_by(people.c.id)
        )
        return [(row.id, row.nudge_address) for row in rows]


async def claim_nudge(
    engine: AsyncEngine, person: str, task_id: str, wait_id: str, delay_s: float, instance: str
) -> bool:
    """True for the one caller, of every replica's, whose row this makes:
    it sends the email. Nothing is claimed once a page of the person's was
    seen open within the delay (read in the same statement)."""
    still_away = sa.select(
        sa.literal(task_id), sa.literal(wait_id), sa.literal(person), sa.literal(instance)
    ).where(
        sa.exists().where(
            people.c.id == person, people.c.nudge_address.is_not(None), _away(delay_s)
        )
    )
    statement = (
        insert(nudges)
        .from_select(["task_id", "wait_id", "person", "instance_id"], still_away)
        .on_conflict_do_nothing(index_elements=[nudges.c.task_id, nudges.c.wait_id])
        .returning(nudges.c.task_id)
    )
    async with engine.begin() as conn:
        return (await conn.execute(statement)).first() is not None


async def nudge_ended(engine: AsyncEngine, task_id: str, wait_id: str, outcome: str) -> None:
    async with engine.begin() as conn:
        await conn.execute(
            nudges.update()
            .where(nudges.c.task_id == task_id, nudges.c.wait_id == wait_id)
            .values(outcome=outcome, ended_at=sa.func.now())
        )


# --- for the operator (nodctl people) -----------------------------------


async def list_people(engine: AsyncEngine) -> list[Person]:
    async with engine.connect() as conn:
        rows = await conn.execute(
            sa.select(people.c.name, people.c.id, people.c.created_at).order_by(people.c.name)
        )
        return [Person(row.name, row.id, row.created_at) for row in rows]


async def person_named(engine: AsyncEngine, name: str) -> Person | None:
    """The person signing in as `name` now."""
    async with engine.connect() as conn:
        row = (
            await conn.execute(
                sa.select(people.c.name, people.c.id, people.c.created_at).where(
                    people.c.name == name
                )
            )
        ).first()
    return Person(row.name, row.id, row.created_at) if row else None


async def set_password(engine: AsyncEngine, name: str, password_hash: str) -> bool:
    """False when there is no such person. Their sessions end with the old
    password: whoever signed in with it is signed out."""
    async with engine.begin() as conn:
        changed = await conn.execute(
            people.update()
            .where(people.c.name == name)
            .values(password_hash=password_hash)
            .returning(people.c.id)
        )
        person = changed.scalar()
        if person is None:
            return False
        await conn.execute(sessions.delete().where(sessions.c.person == person))
    return True


def _session_id(token_hash: bytes) -> str:
    return token_hash.hex()[:SESSION_ID_HEX]


def _id_of(name: str) -> sa.ScalarSelect:
    return sa.select(people.c.id).where(people.c.name == name).scalar_subquery()


async def sessions_of(engine: AsyncEngine, name: str) -> list[SessionSeen]:
    """The sessions of the person named `name` that have not expired, oldest
    first."""
    async with engine.connect() as conn:
        rows = await conn.execute(
            sa.select(sessions)
            .where(sessions.c.person == _id_of(name), sessions.c.expires_at > _now())
            .order_by(sessions.c.created_at)
        )
        return [
            SessionSeen(_session_id(row.token_hash), row.created_at, row.last_seen_at,
                        row.expires_at)
            for row in rows
        ]  # fmt: skip


async def end_sessions(engine: AsyncEngine, name: str, session_id: str | None = None) -> int:
    """Ends the session of the person named `name` that `session_id` names
    (as sessions_of names it), or all of theirs; how many ended."""
    condition = sessions.c.person == _id_of(name)
    if session_id is not None:
        # The id is the hash's first hex digits: compare them in SQL.
        prefix = sa.func.substr(sa.func.encode(sessions.c.token_hash, "hex"), 1, SESSION_ID_HEX)
        condition = sa.and_(condition, prefix == session_id.lower())
    async with engine.begin() as conn:
        return (await conn.execute(sessions.delete().where(condition))).rowcount


async def remove_person(engine: AsyncEngine, name: str) -> bool:
    """Deletes the person (their nudge address with them) and (by the
    foreign key) their sessions and nudges."""
    async with engine.begin() as conn:
        await conn.execute(sessions.delete().where(sessions.c.person == _id_of(name)))
        await conn.execute(nudges.delete().where(nudges.c.person == _id_of(name)))
        return (await conn.execute(people.delete().where(people.c.name == name))).rowcount == 1
