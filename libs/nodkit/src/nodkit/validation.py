"""Input checks shared by every service. Each failure names its field and
is raised before anything is written.

Free text and caller-chosen ids never hold a card number (G8): such text is
stored, returned and shown, and a card number lives in the vault alone."""

import functools
import re
import uuid
from urllib.parse import urlsplit

import idna

from nodkit.cards import contains_card_number
from nodkit.errors import InvalidArgument

MAX_ID_LENGTH = 128


def printable_id(field: str, value: str, *, max_length: int = MAX_ID_LENGTH) -> str:
    """A caller-chosen id: 1..max_length printable characters (no NUL, no
    control characters, no surrounding spaces)."""
    if not value:
        raise InvalidArgument(field, "is required")
    if len(value) > max_length:
        raise InvalidArgument(field, f"must be at most {max_length} characters")
    if not value.isprintable() or value != value.strip():
        raise InvalidArgument(field, "must be printable characters without surrounding spaces")
    return no_card_number(field, value)


def no_card_number(field: str, value: str) -> str:
    if contains_card_number(value):
        raise InvalidArgument(field, "must not contain a card number; cards stay in the vault")
    return value


_CANONICAL_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def uuid_id(field: str, value: str) -> str:
    """A server-made id. Anything that is not a UUID is bad input."""
    if _CANONICAL_UUID.fullmatch(value):  # what this server hands out; checked cheaply
        return value
    if not value:
        raise InvalidArgument(field, "is required")
    try:
        return str(uuid.UUID(value))
    except ValueError:
        raise InvalidArgument(field, "must be an id returned by this service") from None


def optional_uuid_id(field: str, value: str) -> str | None:
    return uuid_id(field, value) if value else None


def text(field: str, value: str, *, max_length: int, required: bool = False) -> str:
    if required and not value.strip():
        raise InvalidArgument(field, "is required")
    if len(value) > max_length:
        raise InvalidArgument(field, f"must be at most {max_length} characters")
    if "\x00" in value:
        raise InvalidArgument(field, "must not contain NUL characters")
    return no_card_number(field, value)


def origin(field: str, value: str) -> str:
    """A web origin, normalised to scheme://host[:port] in lower case, an
    internationalised name in its ASCII (punycode) form."""
    if not value:
        raise InvalidArgument(field, "is required")
    try:
        return _normalised_origin(value)
    except ValueError as bad:
        raise InvalidArgument(field, str(bad)) from None


@functools.lru_cache(maxsize=4096)
def _normalised_origin(value: str) -> str:
    """Cached (only good answers are): a runner sends the same few origins
    over and over, and this is on the path of every claim."""
    example = "must be a web origin such as https://shop.example"
    if len(value) > 512 or not value.isprintable():
        raise ValueError(example)
    parts = urlsplit(value.strip())
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(example)
    if parts.path not in ("", "/") or parts.query or parts.fragment or parts.username:
        raise ValueError("must be an origin only (no path, query or credentials)")
    try:
        port = parts.port
    except ValueError:
        raise ValueError("has an invalid port") from None
    default_port = {"http": 80, "https": 443}[parts.scheme]
    host = _ascii_host(parts.hostname.lower())
    if ":" in host:
        host = f"[{host}]"
    suffix = f":{port}" if port and port != default_port else ""
    return f"{parts.scheme}://{host}{suffix}"


def _ascii_host(host: str) -> str:
    """An internationalised host name as the browser reports it: punycode.

    It is what a page's origin is compared with, and what the person is
    shown, so a look-alike ("shоp.example" with a Cyrillic о) reads as the
    other name it is (xn--shp-ted.example). ASCII names are left as they
    are: the strict IDNA rules refuse names browsers accept (underscores)."""
    if host.isascii():
        return host
    try:
        return idna.encode(host, uts46=True).decode("ascii")
    except idna.IDNAError:
        raise ValueError("has a host name that is not a valid internationalised name") from None
