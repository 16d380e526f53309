"""Where a session may go, and the origin a private value is entered for."""

from urllib.parse import urlsplit

from nodkit import validation
from nodkit.errors import FailedPrecondition, InvalidArgument

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


def entry_origin(page_origin: str, field_origins: list[str | None], site_bound: bool) -> str:
    """The origin an entry is claimed for. A value bound to a site (a saved
    login) goes only to that site's documents: the origin of the frame(s)
    holding its fields (a frame without one of its own, about:blank, is the
    page's), which must all be one. Any other value (a card, a code) is
    entered for the page the person is on, wherever its fields are hosted."""
    if not site_bound:
        return page_origin
    origins = {origin or page_origin for origin in field_origins}
    if len(origins) != 1:
        raise FailedPrecondition(
            "fields: the fields are on different sites; enter each site's fields on their own",
            reason="FIELDS_ON_SEVERAL_SITES",
            field="fields",
        )
    return origins.pop()
