"""A session's network, watched from its context (every frame, every page
it opened), so that a read after a submission can wait for the site to
go quiet.

Playwright's "networkidle" load state can't say so: it is reached once per
document and stays reached, so after a submission that doesn't navigate
the page (a script's fetch, as a sign-in inside a shadow root sends it;
a hosted card frame whose verdict reaches the page by postMessage) it
answers at once, and the read sees the step before the site's answer."""

import asyncio

from playwright.async_api import BrowserContext, Request

# What "quiet" means: no request running and none started or ended for this long.
QUIET_S = 0.5
POLL_S = 0.05


class NetworkActivity:
    def __init__(self, context: BrowserContext) -> None:
        self._running: set[Request] = set()
        self._last_change = asyncio.get_running_loop().time()
        context.on("request", self._started)
        context.on("requestfinished", self._ended)
        context.on("requestfailed", self._ended)

    def _started(self, request: Request) -> None:
        self._running.add(request)
        self._last_change = asyncio.get_running_loop().time()

    def _ended(self, request: Request) -> None:
        self._running.discard(request)
        self._last_change = asyncio.get_running_loop().time()

    def _quiet_since(self, now: float) -> bool:
        return not self._running and now - self._last_change >= QUIET_S

    async def quiet(self, bound_s: float) -> bool:
        """Waits until nothing has run for QUIET_S, or bound_s have passed
        (a page that polls never goes quiet): whether it went quiet."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + bound_s
        while not self._quiet_since(loop.time()):
            if loop.time() >= deadline:
                return False
            await asyncio.sleep(POLL_S)
        return True
