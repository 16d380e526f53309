"""Where a session may go, and where a private entry would send its values."""

from dataclasses import dataclass
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


@dataclass(frozen=True)
class Destination:
    """Where an entry's values would go, as the claims service checks it
    against the value's binding (G13): the top page, the frame holding the
    fields, and the origin the submission goes to (None: nothing is
    pressed, or the pressed element sends no form)."""

    origin: str
    frame_origin: str
    submit_origin: str | None


def fields_origin(page_origin: str, field_origins: list[str | None], *, embeds: bool) -> str:
    """The origin of the frame holding an entry's fields (a frame without
    one of its own, about:blank, is the page's); the fields must all be on
    one site. A card's fields may be split between the shop's page and the
    one provider frame it embeds (a holder's name on the page, the number in
    the frame): the frame is then the provider's."""
    origins = {origin or page_origin for origin in field_origins}
    if embeds and len(origins) == 2 and page_origin in origins:
        origins.discard(page_origin)
    if len(origins) != 1:
        raise FailedPrecondition(
            "fields: the fields are on different sites; enter each site's fields on their own",
            reason="FIELDS_ON_SEVERAL_SITES",
            field="fields",
        )
    return origins.pop()


def submission_origin(action_url: str | None, submit_frame_origin: str) -> str | None:
    """Where pressing the submit element sends its form (its formaction or
    its form's action, as the browser resolved it). A javascript: action
    runs in the submit element's own document."""
    if action_url is None:
        return None
    if urlsplit(action_url).scheme.lower() == "javascript":
        return submit_frame_origin
    origin = origin_of(action_url)
    if origin is None:
        raise FailedPrecondition(
            "submit: this form sends what is typed somewhere that is not a web site;"
            " nothing was entered",
            reason="SUBMISSION_NOT_WEB",
            field="submit",
        )
    return origin


def entry_destination(
    page_url: str,
    field_frame_urls: list[str],
    *,
    action_url: str | None = None,
    submit_frame_url: str | None = None,
    embeds: bool = False,
) -> Destination:
    """Where an entry would send its values, from the page's address, the
    addresses of the frames holding its fields, and the submit element's
    action and frame. `embeds`: a card, whose shop page embeds its
    provider's card fields."""
    page_origin = origin_of(page_url)
    if page_origin is None:
        raise FailedPrecondition("navigate to the site first", reason="NO_ORIGIN")
    frame = fields_origin(page_origin, [origin_of(url) for url in field_frame_urls], embeds=embeds)
    submit_frame = origin_of(submit_frame_url or "") or page_origin
    return Destination(page_origin, frame, submission_origin(action_url, submit_frame))
