"""No request carrying an entered value leaves for an origin the value may
not go to. From an entry's first keystroke for the rest of its session's
life, every request of every page and frame of the session (a navigation,
a form's post, a fetch, an XHR, a beacon, an image's address) is looked at
before it is sent: one whose address, headers or body carries one of the
entry's values, going to an origin outside the entry's allowed origins, is
aborted. A WebSocket is looked at as it opens and at every message the page
sends on it. Requests to an allowed origin pass unread: a script of the
site itself is trusted as the site is.

The values are kept only as the compiled pattern that finds them
(domain/value_finder.py), in memory, never logged. The entry typing them
is told of a request stopped while it runs, and ends UNCERTAIN.
"""

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from playwright.async_api import Error, Request, Route, WebSocketRoute

from nod_browser.domain.addresses import origin_of
from nod_browser.domain.field_rules import VALUES_SENT_ELSEWHERE, metric_rule
from nod_browser.domain.value_finder import ValueFinder
from nodkit.logging import get_logger
from nodkit.metrics import count_entry_refusal

log = get_logger("nod_browser.value_guard")
WEB_SOCKET_SCHEMES = {"ws://": "http://", "wss://": "https://"}
# A WebSocket closed for carrying a value: "policy violation".
POLICY_VIOLATION = 1008


def destination_of(url: str) -> str | None:
    """The web origin a request goes to; None for one that leaves no page
    (data:, blob:, about:)."""
    for scheme, web in WEB_SOCKET_SCHEMES.items():
        if url.startswith(scheme):
            url = web + url.removeprefix(scheme)
    return origin_of(url)


class ValuesSentElsewhere(Exception):
    """The page sent a request carrying an entry's values to an origin they
    may not go to, while the entry ran (the request was stopped)."""

    def __init__(self, destination: str) -> None:
        super().__init__(f"the page tried to send the values to {destination}")
        self.destination = destination


@dataclass(eq=False)
class Held:
    """One entry's values in the session's pages, and where they may go."""

    allowed: frozenset[str]
    finder: ValueFinder = field(default_factory=lambda: ValueFinder(()), repr=False)
    # Set when a request carrying them was stopped while the entry watched.
    stopped: asyncio.Event = field(default_factory=asyncio.Event)
    stopped_to: str = ""
    watched: bool = True

    def take(self, values: list[str]) -> None:
        """The values, right before the first of them is typed."""
        self.finder = ValueFinder(values)

    def stop_watching(self) -> None:
        """Its entry has ended: stopped requests are still stopped, and logged."""
        self.watched = False

    async def unless_sent_elsewhere(self, work: Awaitable[None]) -> None:
        """Runs `work` (the typing and the submit); a request carrying the
        values stopped meanwhile stops it too: ValuesSentElsewhere."""
        working = asyncio.ensure_future(work)
        stopped = asyncio.ensure_future(self.stopped.wait())
        try:
            await asyncio.wait({working, stopped}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            # Also when this call is cancelled (Stop, the deadline): the work goes with it.
            stopped.cancel()
            if not working.done():
                working.cancel()
                await asyncio.wait({working})
        if self.stopped.is_set():
            raise ValuesSentElsewhere(self.stopped_to)
        working.result()


class ValueGuard:
    """The values entered in one session, each entry's with its allowed origins."""

    def __init__(self) -> None:
        self._held: list[Held] = []
        # The keys its log lines carry (set by the session, as SubmitAnswers').
        self.about: Callable[[], dict[str, str]] = dict

    def watch(self, allowed: frozenset[str]) -> Held:
        """An entry's values (once it takes them) go only to `allowed`, for the
        session's life; while it is watched, its entry is told of a stop."""
        held = Held(allowed)
        self._held.append(held)
        return held

    def copy(self) -> "ValueGuard":
        """The values held now and where each may go, for a look's session
        opened from this one: no request of it carries one elsewhere either.
        A snapshot: what either takes later, the other never does. No entry
        runs there to be told of a stop (stops are still made, and logged);
        an entry that has not yet taken its values has none to copy."""
        copied = ValueGuard()
        copied._held = [
            Held(held.allowed, held.finder, watched=False)
            for held in self._held
            if not held.finder.empty
        ]
        return copied

    def forget(self) -> None:
        self._held.clear()

    def _carrying(self, destination: str | None, *texts: Callable[[], str]) -> list[Held]:
        """The entries whose values one of `texts` carries to `destination`,
        where they may not go. Each text is read only if needed."""
        if destination is None:
            return []
        outside = [
            held for held in self._held if not held.finder.empty and destination not in held.allowed
        ]
        found = []
        for read in texts:
            if not outside:
                break
            text = read()
            found += [held for held in outside if held.finder.found_in(text)]
            outside = [held for held in outside if held not in found]
        return found

    def _stopped(self, holders: list[Held], destination: str, what: str) -> None:
        count_entry_refusal(metric_rule(VALUES_SENT_ELSEWHERE))
        told = False
        for held in holders:
            if held.watched and not held.stopped.is_set():
                held.stopped_to = destination
                held.stopped.set()
                told = True
        log.warning(
            "value_guard.stopped",
            destination=destination,
            what=what,
            entry_running=told,
            **self.about(),
        )

    async def stops(self, route: Route) -> bool:
        """Aborts the route's request if it carries a value where it may not
        go; whether it did."""
        if not self._held:
            return False
        request = route.request
        destination = destination_of(request.url)
        holders = self._carrying(
            destination, lambda: request.url, lambda: _headers(request), lambda: _body(request)
        )
        if not holders or destination is None:
            return False
        await route.abort("blockedbyclient")
        self._stopped(holders, destination, request.resource_type)
        return True

    def stops_resend(self, request: Request, location: str) -> bool:
        """Whether a 307 or 308 answer to `request` would have the browser
        send the same body on to `location` carrying a value where it may
        not go (a form posted to its own site, redirected elsewhere with
        what was typed): then the redirect is not followed."""
        if not self._held:
            return False
        destination = destination_of(location)
        holders = self._carrying(destination, lambda: _headers(request), lambda: _body(request))
        if not holders or destination is None:
            return False
        self._stopped(holders, destination, "redirected form")
        return True

    async def web_socket(
        self, socket: WebSocketRoute, held_back: Callable[[str], bool] = lambda url: False
    ) -> None:
        """Opens the page's WebSocket to its server unless its address carries
        a value elsewhere, and passes on each message the page sends that
        carries none; one that does closes the socket. A message `held_back`
        says no to (told the socket's address: a read-only session's) is
        dropped."""
        destination = destination_of(socket.url)
        opening = self._carrying(destination, lambda: socket.url)
        if opening and destination is not None:
            self._stopped(opening, destination, "websocket")
            await socket.close(code=POLICY_VIOLATION)
            return
        server = socket.connect_to_server()

        async def sent(message: str | bytes) -> None:
            if held_back(socket.url):
                return
            text = message if isinstance(message, str) else message.decode("utf-8", "replace")
            holders = self._carrying(destination, lambda: text)
            if holders and destination is not None:
                self._stopped(holders, destination, "websocket message")
                try:
                    await socket.close(code=POLICY_VIOLATION)
                    await server.close(code=POLICY_VIOLATION)
                except Error:
                    pass  # the page or the server closed it first
                return
            server.send(message)

        socket.on_message(sent)

    def __repr__(self) -> str:
        return f"ValueGuard({len(self._held)} entries)"


def _headers(request: Request) -> str:
    return "\n".join(f"{name}: {value}" for name, value in request.headers.items())


def _body(request: Request) -> str:
    body = request.post_data_buffer
    return body.decode("utf-8", "replace") if body else ""
