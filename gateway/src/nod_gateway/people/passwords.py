"""argon2id password hashes. Hashing and checking cost tens of
milliseconds of CPU on purpose, so they run off the event loop."""

import asyncio

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

_hasher = PasswordHasher()
# Checked against when the name is unknown, so an unknown name takes as long
# as a wrong password and the timing tells nothing.
_NOBODY = _hasher.hash("nobody has this password")

MIN_LENGTH = 12
MAX_LENGTH = 1024


def hash_password(password: str) -> str:
    return _hasher.hash(password)


def _matches(password_hash: str | None, password: str) -> bool:
    try:
        return _hasher.verify(password_hash or _NOBODY, password) and password_hash is not None
    except (VerificationError, InvalidHashError):
        return False


async def matches(password_hash: str | None, password: str) -> bool:
    return await asyncio.to_thread(_matches, password_hash, password)
