"""Where a session may go, and the origin a private value is entered for."""

from urllib.parse import urlsplit

from nodkit import validation
from nodkit.errors import InvalidArgument

MAX_URL = 4096


def check_url(url: str) -> str:
    parts = urlsplit(url.strip())
    if len(url) > MAX_URL or parts.scheme not in ("http", "https") or not parts.hostname:
        raise InvalidArgument("url", "must be an http or https address")
    return url.strip()


def origin_of(url: str) -> str | None:
    """The page's web origin, or None for pages that have none (about:blank)."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return None
    return validation.origin("origin", f"{parts.scheme}://{parts.netloc.rpartition('@')[2]}")
