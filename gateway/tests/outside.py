"""The demo app and shop as the tests see them from outside: what they
received and how they answer next; and every page's HTML a test saw, to
look for private values in."""

import contextlib
import json
import urllib.request

from playwright.async_api import Page

from nodtest import observed

from .shop import shop_counts

NOTE_TASK = "Send a note to the demo app: hello from nod"
SIGN_IN_TASK = "Sign in to the demo shop"


def _post(url: str, body: dict) -> dict:
    request = urllib.request.Request(
        url, data=json.dumps(body).encode(), headers={"content-type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=5) as reply:
        return json.load(reply)


def app_received(app_url: str) -> list[dict]:
    """Every request the demo app received, even those it dropped."""
    with urllib.request.urlopen(f"{app_url}/_control/received", timeout=5) as reply:
        return json.load(reply)


@contextlib.contextmanager
def app_mode(app_url: str, mode: str):
    """The demo app answers in this mode until the block ends (even if it fails)."""
    _post(f"{app_url}/_control/mode", {"mode": mode})
    try:
        yield
    finally:
        _post(f"{app_url}/_control/mode", {"mode": "ok"})


@contextlib.contextmanager
def shop_mode(shop_url: str, form: str, mode: str, seconds: float | None = None):
    """The shop answers `form` in this mode (hold: for `seconds`) until the
    block ends; then it answers normally and lets go of what it held."""
    _post(f"{shop_url}/_control/mode", {"form": form, "mode": mode, "seconds": seconds})
    try:
        yield
    finally:
        _post(f"{shop_url}/_control/mode", {"form": form, "mode": "ok"})
        _post(f"{shop_url}/_control/release", {})


def counts_since(shop_url: str, before: dict[str, int]) -> dict[str, int]:
    now = shop_counts(shop_url)
    return {form: now[form] - before.get(form, 0) for form in now}


class SeenPages:
    """The HTML of every page state a test looked at."""

    def __init__(self) -> None:
        self.html: list[str] = []

    async def keep(self, *pages: Page) -> None:
        for page in pages:
            self.html.append(await page.content())
            observed.keep(f"gateway page: {page.url}", self.html[-1])

    def assert_absent(self, *values: str) -> None:
        for value in values:
            assert all(value not in html for html in self.html), "a private value is on a page"
