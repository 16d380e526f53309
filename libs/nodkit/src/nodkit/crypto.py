"""AES-GCM sealing of private values (DESIGN.md section 4).

Each value is sealed alone with associated data that binds it to its owner,
its row and its field, so a ciphertext copied to another row, person or field
does not open. Every sealed value names its key id, so keys can rotate: the
first key in NOD_VAULT_KEY seals, every listed key opens.

NOD_VAULT_KEY is either one base64 key of 32 bytes, or a comma-separated list
of `key_id:base64key`, newest first.

A keyed digest (HMAC-SHA256 under a key derived from the vault key) tells
whether two requests carried the same private values without keeping them:
a plain hash of a six-digit code is undone by trying a million codes; this
one only by whoever holds the vault key.
"""

import base64
import binascii
import hashlib
import hmac
import os

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

NONCE_BYTES = 12
# Derives the digest key from a sealing key: the AES key itself never keys
# an HMAC, and a digest says nothing about it.
DIGEST_KEY_LABEL = b"nod keyed digest v1"


class SealError(Exception):
    """A sealed value could not be opened (wrong key, row or tampering).
    Deliberately says nothing about the value."""


def _key_id(key: bytes) -> str:
    return "k" + hashlib.sha256(key).hexdigest()[:8]


def parse_key_ring(setting: str) -> list[tuple[str, bytes]]:
    ring = []
    for part in filter(None, (p.strip() for p in setting.split(","))):
        key_id, _, encoded = part.rpartition(":")
        try:
            key = base64.b64decode(encoded, validate=True)
        except binascii.Error:
            raise ValueError("NOD_VAULT_KEY holds a key that is not base64") from None
        if len(key) != 32:
            raise ValueError("NOD_VAULT_KEY keys must be 32 bytes (AES-256)")
        ring.append((key_id or _key_id(key), key))
    if not ring:
        raise ValueError("NOD_VAULT_KEY is empty")
    return ring


def key_ring_problem(setting: str) -> str | None:
    """What is wrong with a NOD_VAULT_KEY setting, in words after the
    variable's name (never the value); None when it is a usable ring."""
    try:
        parse_key_ring(setting)
    except ValueError as error:
        return str(error).removeprefix("NOD_VAULT_KEY ")
    return None


def key_id_of(token: str) -> str:
    """The key id a sealed value or digest names (its prefix; nothing opened)."""
    return token.partition(":")[0]


def new_key_setting() -> str:
    return base64.b64encode(os.urandom(32)).decode()


def _associated_data(context: tuple[str, ...]) -> bytes:
    # Length-prefixed, so ("ab", "c") and ("a", "bc") never bind alike.
    return "|".join(f"{len(part)}:{part}" for part in context).encode()


class Sealer:
    def __init__(self, key_setting: str) -> None:
        ring = parse_key_ring(key_setting)
        self._current_id = ring[0][0]
        self._ciphers = {key_id: AESGCM(key) for key_id, key in ring}
        self._digest_keys = {
            key_id: hmac.new(key, DIGEST_KEY_LABEL, hashlib.sha256).digest() for key_id, key in ring
        }

    @property
    def current_key_id(self) -> str:
        """The newest key's id: what every value sealed now names."""
        return self._current_id

    @property
    def key_ids(self) -> tuple[str, ...]:
        """Every listed key's id, the newest first: what this ring opens."""
        return tuple(self._ciphers)

    def is_current(self, token: str) -> bool:
        """Whether `token` names the newest key (read from its prefix; nothing opened)."""
        return key_id_of(token) == self._current_id

    def reseal(self, token: str, *context: str) -> str:
        """`token`'s value sealed again under the newest key, for the same
        context (raises SealError when it does not open)."""
        return self.seal(self.open(token, *context), *context)

    def seal(self, plaintext: str, *context: str) -> str:
        nonce = os.urandom(NONCE_BYTES)
        sealed = self._ciphers[self._current_id].encrypt(
            nonce, plaintext.encode(), _associated_data(context)
        )
        return f"{self._current_id}:{base64.b64encode(nonce + sealed).decode()}"

    def open(self, token: str, *context: str) -> str:
        key_id, _, encoded = token.partition(":")
        cipher = self._ciphers.get(key_id)
        if cipher is None:
            raise SealError(f"sealed with unknown key {key_id!r}")
        raw = base64.b64decode(encoded)
        try:
            plain = cipher.decrypt(raw[:NONCE_BYTES], raw[NONCE_BYTES:], _associated_data(context))
        except InvalidTag:
            raise SealError("sealed value does not open for this owner, row and field") from None
        return plain.decode()

    def seal_fields(self, fields: dict[str, str], *context: str) -> dict[str, str]:
        return {name: self.seal(value, *context, name) for name, value in fields.items()}

    def open_fields(self, sealed: dict[str, str], *context: str) -> dict[str, str]:
        return {name: self.open(token, *context, name) for name, token in sealed.items()}

    def fields_current(self, sealed: dict[str, str]) -> bool:
        return all(self.is_current(token) for token in sealed.values())

    def reseal_fields(self, sealed: dict[str, str], *context: str) -> dict[str, str]:
        """Every field under the newest key; the value itself never leaves here."""
        return {name: self.reseal(token, *context, name) for name, token in sealed.items()}

    def digest(self, plaintext: str, *context: str) -> str:
        """A keyed digest of `plaintext` bound to `context`, naming its key:
        equal for equal input under the same key, and nothing to anyone
        without the key. URL-safe base64, not hex: hex can hold a run of
        digits that reads like a card number."""
        return f"{self._current_id}:{self._keyed(self._current_id, plaintext, context)}"

    def digests(self, plaintext: str, *context: str) -> list[str]:
        """`digest` under every key of the ring, the newest first: a value
        looked up by digest (one row per digest) is still found after the
        keys rotate, while both are listed."""
        return [
            f"{key_id}:{self._keyed(key_id, plaintext, context)}" for key_id in self._digest_keys
        ]

    def digest_matches(self, token: str, plaintext: str, *context: str) -> bool:
        """Whether `token` (from digest) was made of this plaintext and
        context. A digest under a key no longer listed can't be checked and
        does not match: the caller refuses rather than guesses."""
        key_id, _, expected = token.partition(":")
        if key_id not in self._digest_keys:
            return False
        return hmac.compare_digest(self._keyed(key_id, plaintext, context), expected)

    def _keyed(self, key_id: str, plaintext: str, context: tuple[str, ...]) -> str:
        message = _associated_data((*context, plaintext))
        mac = hmac.new(self._digest_keys[key_id], message, hashlib.sha256).digest()
        return base64.urlsafe_b64encode(mac).decode().rstrip("=")
