"""EnterPrivate beside a bare Playwright fill on nodtest.patterns' pages: the
way real sites build a step (hosted card fields in a cross-origin frame, a
code over six boxes, a sign-in in a shadow root, one behind a cookie
banner, one in two steps).

A claims service and a browser runner as their own processes, as
enter_private_bench.py starts them; the pattern sites run in this process
(nodtest.patterns, a shop and a cross-origin card host), and a bare
Playwright drives Chromium launched the way the runner launches it. Each
round enters the same values into the same fields of the same page once
with EnterPrivate (claim, fill, press, MarkSubmitted) and once bare (fill
each field, click). The page is loaded and read before each entry,
untimed; rounds alternate the two.

"bare" stops the clock when the click returns; EnterPrivate returns once
the site has answered the submission, so the bare entry is also timed to
that answer ("bare+answer"), which is the like-for-like figure (as in
app_entry_bench.py).

BENCH_PATTERN_ENTRIES (default 20) rounds per pattern after
BENCH_PATTERN_WARMUP (default 3).
"""

import asyncio
import os
import subprocess
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from importlib.metadata import version

import pyotp
from enter_private_bench import (
    LOGS,
    EntryClient,
    percentiles,
    service_env,
    start_claims_and_browser,
)
from playwright.async_api import Locator, Page, Response

from nod.browser.v1 import browser_pb2 as bpb
from nod.claims.v1 import claims_pb2 as cpb
from nod_browser.adapters.chromium import Chromium
from nodtest.database import create_test_database, drop_test_database
from nodtest.patterns import PatternSites, start_patterns

ENTRIES = int(os.environ.get("BENCH_PATTERN_ENTRIES", "20"))
WARMUP = int(os.environ.get("BENCH_PATTERN_WARMUP", "3"))
CARD = {"number": "4111111111111111", "expiry": "12/29"}
SECURITY_CODE = "737"


@dataclass
class Timed:
    """One bare entry: to the click's return, and to the site's answer."""

    click: float
    answer: float


async def bare_submit(
    page: Page, fill: Callable[[], Awaitable[None]], submit: Locator, started: float | None = None
) -> Timed:
    """Timed from `started` (default: now): `fill()` then `submit`'s click;
    the clock's second reading when the site answers the POST the click
    sent (a frame's POST too: the page hears its frames' answers)."""
    started = time.perf_counter() if started is None else started
    async with page.expect_response(lambda r: r.request.method == "POST") as answer:
        await fill()
        await submit.click()
        clicked = time.perf_counter()
    response: Response = await answer.value
    await response.finished()
    return Timed(clicked - started, time.perf_counter() - started)


def field_ref(page: bpb.Page, name: str) -> str:
    return next(f.ref for f in page.fields if f.name == name)


def control_ref(page: bpb.Page, text: str) -> str:
    return next(c.ref for c in page.controls if c.text.startswith(text))


class Runner(EntryClient):
    """The pattern pages' entries through the runner."""

    def __init__(self, browser_addr: str, claims_addr: str, sites: PatternSites) -> None:
        super().__init__(browser_addr, claims_addr)
        self.sites = sites

    async def open(self) -> None:
        login = cpb.VaultItem(
            kind=cpb.ENTRY_KIND_SAVED_LOGIN,
            label="patterns",
            origin=self.sites.url,
            fields={"username": self.sites.state.username, "password": self.sites.state.password},
        )
        card = cpb.VaultItem(kind=cpb.ENTRY_KIND_CARD, label="visa", fields=CARD)
        self.login_id = await self.put_item(login)
        self.card_id = await self.put_item(card)
        await self.open_session()

    async def go(self, path: str) -> bpb.Page:
        return await self.navigate(self.sites.url + path)

    # --- one entry per pattern (only EnterPrivate timed) ---

    async def hosted_card(self) -> float:
        page = await self.go("/checkout")
        code_id = await self.private_entry(
            cpb.ENTRY_KIND_SECURITY_CODE, {"security_code": SECURITY_CODE}
        )
        fields = {
            "number": field_ref(page, "cardnumber"),
            "expiry": field_ref(page, "exp-date"),
            "security_code": field_ref(page, "cvc"),
        }
        return await self.enter(
            cpb.ENTRY_KIND_CARD,
            self.card_id,
            fields,
            control_ref(page, "Pay"),
            companion_entry_id=code_id,
        )

    async def six_box_code(self) -> float:
        page = await self.go("/code")
        self.sites.state.last_code_step = -1  # each round's code is accepted
        code = pyotp.TOTP(self.sites.state.totp_seed).now()
        entry_id = await self.private_entry(cpb.ENTRY_KIND_ONE_TIME_CODE, {"code": code})
        boxes = next(f.ref for f in page.fields if f.type == "code_boxes")
        return await self.enter(
            cpb.ENTRY_KIND_ONE_TIME_CODE, entry_id, {"code": boxes}, control_ref(page, "Verify")
        )

    async def shadow_login(self) -> float:
        page = await self.go("/shadow-login")
        return await self._login(page, "Sign in")

    async def banner_login(self) -> float:
        page = await self.go("/banner-login")
        if page.overlay_present:  # the first time: the banner, accepted untimed
            click = bpb.ClickRequest(
                session_id=self.session_id, target=control_ref(page, "Accept all")
            )
            page = (await self.browser.Click(click, metadata=self.meta)).page
        return await self._login(page, "Sign in")

    async def two_step(self) -> float:
        page = await self.go("/two-step")
        first = await self.enter(
            cpb.ENTRY_KIND_SAVED_LOGIN,
            self.login_id,
            {"username": field_ref(page, "username")},
            control_ref(page, "Next"),
        )
        page = await self.read()
        second = await self.enter(
            cpb.ENTRY_KIND_SAVED_LOGIN,
            self.login_id,
            {"password": field_ref(page, "password")},
            control_ref(page, "Sign in"),
        )
        return first + second

    async def _login(self, page: bpb.Page, submit: str) -> float:
        fields = {"username": field_ref(page, "username"), "password": field_ref(page, "password")}
        return await self.enter(
            cpb.ENTRY_KIND_SAVED_LOGIN, self.login_id, fields, control_ref(page, submit)
        )


class Bare:
    """Playwright alone: the same fields filled, the same button clicked."""

    def __init__(self, chromium: Chromium, sites: PatternSites) -> None:
        self._chromium = chromium
        self.sites = sites

    async def open(self) -> None:
        self._context = await self._chromium.new_context(None)  # bare: no address guard
        self.page: Page = await self._context.new_page()

    async def go(self, path: str) -> Page:
        await self.page.goto(self.sites.url + path, wait_until="load")
        return self.page

    async def hosted_card(self) -> Timed:
        page = await self.go("/checkout")
        card = page.frame_locator("#card-frame")
        await card.locator("#cardnumber").wait_for()

        async def fill() -> None:
            await card.locator("#cardnumber").fill(CARD["number"])
            await card.locator("#exp-date").fill(CARD["expiry"])
            await card.locator("#cvc").fill(SECURITY_CODE)

        return await bare_submit(page, fill, card.locator("button[type=submit]"))

    async def six_box_code(self) -> Timed:
        page = await self.go("/code")
        self.sites.state.last_code_step = -1
        code = pyotp.TOTP(self.sites.state.totp_seed).now()

        async def fill() -> None:
            boxes = page.locator("input.digit")
            for n, digit in enumerate(code):
                await boxes.nth(n).fill(digit)

        return await bare_submit(page, fill, page.locator("button[type=submit]"))

    async def shadow_login(self) -> Timed:
        page = await self.go("/shadow-login")
        return await self._login(page, page.locator("nod-sign-in #submit"))

    async def banner_login(self) -> Timed:
        page = await self.go("/banner-login")
        accept = page.locator("[data-consent=all]")
        if await accept.count():
            await accept.click()  # untimed, as the runner's
        return await self._login(page, page.locator("#login button[type=submit]"))

    async def two_step(self) -> Timed:
        page = await self.go("/two-step")
        started = time.perf_counter()
        await page.locator("#username").fill(self.sites.state.username)
        await page.locator("button[type=submit]").click()
        await page.wait_for_url("**/two-step/password**")

        async def fill() -> None:
            await page.locator("#password").fill(self.sites.state.password)

        return await bare_submit(page, fill, page.locator("button[type=submit]"), started)

    async def _login(self, page: Page, submit: Locator) -> Timed:
        async def fill() -> None:
            await page.locator("#username").fill(self.sites.state.username)
            await page.locator("#password").fill(self.sites.state.password)

        return await bare_submit(page, fill, submit)

    async def close(self) -> None:
        await self._context.close()


@dataclass(frozen=True)
class Pattern:
    name: str
    # The forms the site counts per entry (nodtest.patterns.FORMS).
    forms: tuple[str, ...]
    runner: Callable[[Runner], Awaitable[float]]
    bare: Callable[[Bare], Awaitable[Timed]]


PATTERNS = (
    Pattern("hosted card frames", ("hosted_card",), Runner.hosted_card, Bare.hosted_card),
    Pattern("six-box code", ("six_box_code",), Runner.six_box_code, Bare.six_box_code),
    Pattern("shadow-DOM sign-in", ("shadow_login",), Runner.shadow_login, Bare.shadow_login),
    Pattern("banner sign-in", ("banner_login",), Runner.banner_login, Bare.banner_login),
    Pattern(
        "two-step sign-in",
        ("two_step_username", "two_step_password"),
        Runner.two_step,
        Bare.two_step,
    ),
)


async def alternate(
    runner_entry: Callable[[], Awaitable[float]],
    bare_entry: Callable[[], Awaitable[float]],
    warmup: int,
    entries: int,
) -> tuple[list[float], list[float]]:
    """`warmup` rounds untimed, then `entries` rounds, each one entry with
    EnterPrivate then one bare: whatever else the machine does falls on both."""
    for _ in range(warmup):
        await runner_entry()
        await bare_entry()
    entered, bared = [], []
    for _ in range(entries):
        entered.append(await runner_entry())
        bared.append(await bare_entry())
    return entered, bared


async def measure(pattern: Pattern, runner: Runner, bare: Bare) -> tuple[list[float], list[Timed]]:
    bared: list[Timed] = []

    async def bare_entry() -> float:
        bared.append(await pattern.bare(bare))
        return bared[-1].click

    entered, _ = await alternate(lambda: pattern.runner(runner), bare_entry, WARMUP, ENTRIES)
    return entered, bared[WARMUP:]


async def wait_for_counts(sites: PatternSites, forms: tuple[str, ...], expected: int) -> None:
    """The bare click returns before the site has the form: wait (bounded) for it."""
    for _ in range(200):  # 10 s
        if all(sites.count(form) >= expected for form in forms):
            break
        await asyncio.sleep(0.05)
    received = {form: sites.count(form) for form in forms}
    if any(count != expected for count in received.values()):
        raise RuntimeError(f"the site received {received}, expected {expected} each")


async def main() -> None:
    LOGS.mkdir(parents=True, exist_ok=True)
    database_url = create_test_database()
    processes: list[subprocess.Popen] = []
    chromium, sites = None, None
    try:
        claims_addr, browser_addr = await start_claims_and_browser(
            service_env(database_url), processes
        )
        sites = await start_patterns()
        chromium = await Chromium.launch()
        runner, bare = Runner(browser_addr, claims_addr, sites), Bare(chromium, sites)
        await runner.open()
        await bare.open()
        print(
            f"EnterPrivate on pattern pages: {os.cpu_count()} cores, {ENTRIES} entries each"
            f" (after {WARMUP} warm-up), playwright {version('playwright')}"
        )
        print(
            f"  {'pattern':<20} {'EnterPrivate':>13} {'bare':>11} {'ratio':>6}"
            f" {'bare+answer':>13} {'ratio':>6}   (p50)"
        )
        for pattern in PATTERNS:
            entered, bared = await measure(pattern, runner, bare)
            await wait_for_counts(sites, pattern.forms, 2 * (WARMUP + ENTRIES))
            entry_p50, _ = percentiles(entered)
            click_p50, _ = percentiles([t.click for t in bared])
            answer_p50, _ = percentiles([t.answer for t in bared])
            print(
                f"  {pattern.name:<20} {entry_p50:10.1f} ms {click_p50:8.1f} ms"
                f" {entry_p50 / click_p50:6.2f} {answer_p50:10.1f} ms {entry_p50 / answer_p50:6.2f}"
            )
        await runner.close()
        await bare.close()
    finally:
        if chromium is not None:
            await chromium.close()
        if sites is not None:
            await sites.close()
        for process in processes:
            process.kill()
            process.wait()
        drop_test_database(database_url)


if __name__ == "__main__":
    asyncio.run(main())
