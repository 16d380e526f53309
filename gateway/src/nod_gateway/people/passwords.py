"""argon2id password hashes. Hashing and checking cost tens of
milliseconds of CPU on purpose, so they run off the event loop."""

import asyncio
import functools

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

_hasher = PasswordHasher()


@functools.cache
def _nobody() -> str:
    """Checked against when the name is unknown, so an unknown name takes as
    long as a wrong password and the timing tells nothing. Made by prepare()
    as the web server starts, before its first request (made at a first
    sign-in, that sign-in's time would tell its name is unknown); not at
    import: it is a tenth of a second of CPU, and nodctl's every command and
    the gateway's own commands import this module too."""
    return _hasher.hash("nobody has this password")


def prepare() -> None:
    """What checking a sign-in needs, made before the first one."""
    _nobody()


MIN_LENGTH = 12
MAX_LENGTH = 1024


def hash_password(password: str) -> str:
    return _hasher.hash(password)


def _matches(password_hash: str | None, password: str) -> bool:
    try:
        return _hasher.verify(password_hash or _nobody(), password) and password_hash is not None
    except (VerificationError, InvalidHashError):
        return False


async def matches(password_hash: str | None, password: str) -> bool:
    return await asyncio.to_thread(_matches, password_hash, password)
