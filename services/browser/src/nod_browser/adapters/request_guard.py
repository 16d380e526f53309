"""Every request that can change something on a site goes out exactly once.

Chromium silently resends a POST when a reused keep-alive connection is cut
before the answer arrives (measured against the demo shop: one click, two
submissions). So a context's requests with any method but GET/HEAD/OPTIONS
are sent by Playwright's own HTTP client instead, with no retries and no
redirects followed, and the answer (or the failure) is handed to the page.
"""

from playwright.async_api import BrowserContext, Error, Route

from nodkit.logging import get_logger

log = get_logger("nod_browser.request_guard")

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


async def send_unsafe_requests_once(context: BrowserContext, timeout_s: float) -> None:
    async def guard(route: Route) -> None:
        try:
            if route.request.method in SAFE_METHODS:
                await route.fallback()
                return
            await _send_once(route, timeout_s)
        except Error:
            # The page or context went away while the request was out; the
            # sending side (e.g. the entry's submit click) reports the outcome.
            log.info("request_guard.page_gone", method=route.request.method)

    await context.route("**/*", guard)


async def _send_once(route: Route, timeout_s: float) -> None:
    try:
        response = await route.fetch(max_redirects=0, max_retries=0, timeout=timeout_s * 1000)
    except Error as error:
        log.warning(
            "request_guard.no_answer", method=route.request.method, error=type(error).__name__
        )
        await route.abort("connectionreset")
        return
    await route.fulfill(response=response)
