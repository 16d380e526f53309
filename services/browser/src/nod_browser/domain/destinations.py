"""Where an entry's values may go: the origins a submission of them, or any
request carrying them, may reach. Everything else is refused before the
claim (the submission's destination) or stopped in the browser while the
values are in the page (request_guard.py)."""

from collections.abc import Iterable

from nod_browser.domain.field_rules import SUBMITS_ELSEWHERE
from nodkit.errors import FailedPrecondition


def allowed_origins(
    grant: object | None, top_origin: str, field_origins: Iterable[str | None]
) -> frozenset[str]:
    """The origins an entry's values may go to: the top page's and those of
    the frames holding its fields (a frame with no origin of its own,
    about:blank, is the page's). A script of one of these origins is
    trusted as the site is. Once granted, the claims service's answer says
    where the value's binding lets it go (`bound_origins`: the saved login's
    sites, the shop said yes to and its card frame, the form's page): those.
    `grant` is None before the claim, or from a claims service that names
    none: then the page's and the fields' frames'."""
    bound = frozenset(getattr(grant, "bound_origins", ()) or ())
    if bound:
        return bound
    return frozenset({top_origin, *(origin or top_origin for origin in field_origins)})


def check_destination(field: str, destination: str | None, allowed: frozenset[str]) -> None:
    """Refuses (before anything is claimed) a form that would send the values
    to an origin outside `allowed`; None: an address with no web origin."""
    if destination in allowed:
        return
    where = destination or "an address with no web origin"
    raise FailedPrecondition(
        f"{field}: this form sends what is typed into it to {where}, not to the site the"
        " values are entered for",
        reason=SUBMITS_ELSEWHERE,
        field=field,
    )
