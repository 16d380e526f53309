"""A session turned read-only (a look, G14) sends a site nothing that could
change anything there, whatever its pages' scripts try.

The check sits in the context's request guard (request_guard.py), in front
of everything else there: the one place that sees the method of every
request of every page, popup and frame of the session, and of their
dedicated workers (a navigation, a form's post, a fetch, an XHR, a beacon,
a ping). The address guard behind it (egress_proxy.py) can't be that
place: it sees an https request only as a CONNECT tunnel, never its method.
(A shared worker's requests pass no route at all, so Chromium runs with
shared workers off: chromium.py.)

A request whose method is not GET, HEAD or OPTIONS is aborted before it
leaves the browser, as "aborted": a navigation cancelled that way leaves
the page where it was (another error code would swap in Chromium's error
page), so a page that posts a form from a script on load still shows the
person what it showed. What a page sends on a WebSocket is not passed on
either: a message can ask for as much as a POST can.

Once on, it stays on for the session's life: a look's session is never
again one that acts.
"""

from collections.abc import Callable

from playwright.async_api import Route

from nod_browser.adapters.value_guard import destination_of
from nodkit.logging import get_logger

log = get_logger("nod_browser.read_only")

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
# What a refused WebSocket message is logged as (it has no HTTP method).
WEB_SOCKET_SEND = "WEBSOCKET_SEND"


class ReadOnly:
    def __init__(self) -> None:
        self._on = False
        # The keys its log lines carry (set by the session, as SubmitAnswers').
        self.about: Callable[[], dict[str, str]] = dict

    @property
    def on(self) -> bool:
        return self._on

    def turn_on(self) -> None:
        """For the rest of the session's life; there is no turning it off."""
        self._on = True

    async def stops(self, route: Route) -> bool:
        """Aborts the route's request if the session is read-only and the
        request could change something; whether it did."""
        method = route.request.method
        if not self._on or method in SAFE_METHODS:
            return False
        await route.abort("aborted")
        self._refused(method, route.request.url)
        return True

    def stops_message(self, url: str) -> bool:
        """Whether a message the page sends on its WebSocket to `url` is
        held back (the session is read-only)."""
        if self._on:
            self._refused(WEB_SOCKET_SEND, url)
        return self._on

    def _refused(self, method: str, url: str) -> None:
        # The origin only: a path or a query may carry what the page meant to send.
        origin = destination_of(url) or ""
        log.warning("browser.read_only_refused", method=method, origin=origin, **self.about())

    def __repr__(self) -> str:
        return f"ReadOnly(on={self._on})"
