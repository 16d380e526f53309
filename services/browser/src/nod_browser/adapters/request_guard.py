"""Every request that can change something on a site goes out exactly once.

Chromium silently resends a POST when a reused keep-alive connection is cut
before the answer arrives (measured against the demo shop: one click, two
submissions). So a context's requests with any method but GET/HEAD/OPTIONS
are sent by Playwright's own HTTP client instead, with no retries and no
redirects followed, and the answer (or the failure) is handed to the page.

The guard is routed on the context, so it sees every frame of every page:
a hosted card frame posting to its own origin, and a popup or tab the site
opens (whose first request a page's route would miss).

Because the guard sends them, it is also the first to know that the site
answered one: SubmitAnswers tells an entry waiting on its submit click at
that moment, before the page has taken the answer and loaded what follows.

In front of all that, in the same route, the session's ValueGuard aborts any
request (of any method) carrying an entered value to an origin it may not
go to (value_guard.py); it also opens every WebSocket of the context. And
first of all, once a look has turned the session read-only, ReadOnly aborts
every request but a GET, HEAD or OPTIONS (read_only.py).
"""

from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from urllib.parse import urljoin

from playwright.async_api import BrowserContext, Error, Page, Request, Route

from nod_browser.adapters.read_only import SAFE_METHODS, ReadOnly
from nod_browser.adapters.value_guard import ValueGuard
from nodkit.logging import get_logger

log = get_logger("nod_browser.request_guard")

# The redirects a browser follows with the same method and body.
RESENDING_REDIRECTS = frozenset({307, 308})


@dataclass(eq=False)
class _Waiting:
    page: Page
    on_answer: Callable[[], Awaitable[None]]


class SubmitAnswers:
    """Calls back, once, when the site has answered a form submission of a
    page: an unsafe request that navigates one of the page's frames (a
    form's POST, also from inside an iframe, not a script's fetch or
    beacon), or a page that page opened (a form sent to a new window)."""

    def __init__(self) -> None:
        self._waiting: list[_Waiting] = []
        # The keys the guard's log lines carry (Playwright runs the guard in
        # its own task, outside every call's context): set by the session.
        self.about: Callable[[], dict[str, str]] = dict

    @contextmanager
    def calling(self, page: Page, on_answer: Callable[[], Awaitable[None]]) -> Iterator[None]:
        """While inside, the page's next answered submission calls on_answer."""
        waiting = _Waiting(page, on_answer)
        self._waiting.append(waiting)
        try:
            yield
        finally:
            if waiting in self._waiting:
                self._waiting.remove(waiting)

    async def answered(self, request: Request) -> None:
        if not self._waiting or not request.is_navigation_request():
            return
        try:
            navigated = request.frame.page
        except Error:
            return  # not a page's request (a service worker's)
        pages = {navigated}
        if not any(w.page is navigated for w in self._waiting):
            try:
                opener = await navigated.opener()
            except Error:
                opener = None
            if opener is not None:
                pages.add(opener)
        for waiting in [w for w in self._waiting if w.page in pages]:
            self._waiting.remove(waiting)
            try:
                await waiting.on_answer()
            except Exception as error:  # noqa: BLE001 - the page gets the answer regardless
                # The entry waiting on its click still learns the outcome
                # from the click itself; the page must not lose the answer.
                log.error(
                    "request_guard.on_answer_failed", error=type(error).__name__, **self.about()
                )


async def send_unsafe_requests_once(
    context: BrowserContext, timeout_s: float, values: ValueGuard, read_only: ReadOnly
) -> SubmitAnswers:
    answers = SubmitAnswers()

    async def guard(route: Route) -> None:
        try:
            # Read-only first: it decides on the method alone, reading no body.
            if await read_only.stops(route) or await values.stops(route):
                return
            if route.request.method in SAFE_METHODS:
                await route.fallback()
                return
            await _send_once(route, timeout_s, answers, values)
        except Error:
            # The page or context went away while the request was out; the
            # sending side (e.g. the entry's submit click) reports the outcome.
            log.info("request_guard.page_gone", method=route.request.method, **answers.about())

    await context.route("**/*", guard)
    await context.route_web_socket(
        lambda url: True, lambda socket: values.web_socket(socket, read_only.stops_message)
    )
    return answers


async def _send_once(
    route: Route, timeout_s: float, answers: SubmitAnswers, values: ValueGuard
) -> None:
    try:
        response = await route.fetch(max_redirects=0, max_retries=0, timeout=timeout_s * 1000)
    except Error as error:
        log.warning(
            "request_guard.no_answer",
            method=route.request.method,
            error=type(error).__name__,
            **answers.about(),
        )
        await route.abort("connectionreset")
        return
    await answers.answered(route.request)
    if response.status in RESENDING_REDIRECTS:
        location = urljoin(route.request.url, response.headers.get("location", ""))
        if values.stops_resend(route.request, location):
            await route.abort("blockedbyclient")
            return
    await route.fulfill(response=response)
