"""EnterPrivate beside a bare Playwright fill on real open-source web
applications (nodtest.webapps, run on loopback as the tests run them): the
Django admin behind django-two-factor-auth (its password page, and its TOTP
code page), django-oscar's checkout card step (card number, expiry as two
selects, security code) and django-allauth's sign-in by emailed code.

A claims service and a browser runner as their own processes, as
enter_private_bench.py starts them; each site as the tests start it (a
Django dev server in a child process, on a copy of a migrated and seeded
SQLite database, kept in var/bench/webapps between runs); a bare Playwright
driving Chromium launched the way the runner launches it. Each round enters
the same values into the same fields of the same page once with
EnterPrivate (claim, fill, press, MarkSubmitted) and once bare (fill each
field, click), rounds alternating (pattern_entry_bench.alternate). Only the
entry is timed: reaching the page (signing in and filling a basket and a
shipping address for the shop, requesting the code for allauth, the
password step before the code page) is done untimed before it, and after
it each side waits, untimed, for the site's next page.

"bare" stops the clock when the click returns; EnterPrivate returns once
the site has answered the submission, so the bare entry is also timed to
that answer ("bare+answer"), which is the like-for-like figure.

Values are never printed: the accounts' passwords, the card and the codes
go only into the vault, the page and the site.

BENCH_ENTRIES (default 20) rounds per page after BENCH_WARMUP (default 3).
"""

import asyncio
import os
import pathlib
import sqlite3
import subprocess
import tempfile
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from importlib.metadata import version

from enter_private_bench import (
    LOGS,
    EntryClient,
    percentiles,
    service_env,
    start_claims_and_browser,
)
from pattern_entry_bench import Timed, alternate, bare_submit, control_ref, field_ref
from playwright.async_api import BrowserContext, Page

from nod.browser.v1 import browser_pb2 as bpb
from nod.claims.v1 import claims_pb2 as cpb
from nod_browser.adapters.chromium import Chromium
from nodtest.claims import CANARY_PASSWORD
from nodtest.database import create_test_database, drop_test_database
from nodtest.webapps.allauth_code import (
    AllauthCodeSite,
    allauth_code_database,
    start_allauth_code,
)
from nodtest.webapps.oscar_shop import OscarShopSite, oscar_shop_database, start_oscar_shop
from nodtest.webapps.twofactor_admin import (
    TwoFactorAdminSite,
    start_twofactor_admin,
    twofactor_admin_database,
)

ENTRIES = int(os.environ.get("BENCH_ENTRIES", "20"))
WARMUP = int(os.environ.get("BENCH_WARMUP", "3"))
TEMPLATES = LOGS / "webapps"  # the sites' built databases, kept between runs
CARD = {"number": "4111111111111111", "expiry": "12/29"}  # paid by the stand-in gateway
SECURITY_CODE = "737"
ADDRESS = {
    "first_name": "Grace",
    "last_name": "Hopper",
    "line1": "1 Main Street",
    "line4": "London",
    "postcode": "SW1A 1AA",
}


def page_field(page: bpb.Page, name: str, form_ref: str | None = None) -> bpb.Field:
    return next(f for f in page.fields if f.name == name and form_ref in (None, f.form_ref))


def submit_in(page: bpb.Page, form_ref: str, text: str) -> str:
    return next(
        c.ref for c in page.controls if c.form_ref == form_ref and c.text.strip().startswith(text)
    )


class Bare:
    """Playwright alone in a context of its own (a fresh one on demand)."""

    def __init__(self, chromium: Chromium) -> None:
        self._chromium = chromium
        self._context: BrowserContext | None = None

    async def fresh(self) -> Page:
        await self.close()
        self._context = await self._chromium.new_context(None)  # bare: no address guard
        self._context.set_default_timeout(30_000)
        self.page = await self._context.new_page()
        return self.page

    async def close(self) -> None:
        if self._context is not None:
            await self._context.close()
            self._context = None


# --- the Django admin behind django-two-factor-auth ------------------------


class TwoFactor:
    """The password page (username, password, Next) and the code page (the
    TOTP code, Next), each entry on the page as the site serves it.

    The code page: the code is one a person reads off an authenticator app
    (a one-time-code entry), not the claims service's code from the saved
    seed, which grants each 30 s step once and so makes a second sign-in
    wait for the next step. django-otp accepts a step once too, so the
    device's last accepted step is reset, untimed, before each entry."""

    def __init__(self, site: TwoFactorAdminSite, runner: EntryClient, bare: Bare) -> None:
        self.site, self.runner, self.bare = site, runner, bare
        self.account = site.account

    async def open(self) -> None:
        self.login_id = await self.runner.put_item(
            cpb.VaultItem(
                kind=cpb.ENTRY_KIND_SAVED_LOGIN,
                label="admin",
                origin=self.site.url,
                fields={"username": self.account.username, "password": self.account.password},
            )
        )
        await self.runner.open_session()
        await self.bare.fresh()

    def forget_accepted_code(self) -> None:
        with sqlite3.connect(self.site.server.db, timeout=10) as conn:
            conn.execute("UPDATE otp_totp_totpdevice SET last_t = -1")

    async def runner_password(self) -> float:
        page = await self.runner.navigate(self.site.login_url)
        fields = {
            "username": field_ref(page, "auth-username"),
            "password": field_ref(page, "auth-password"),
        }
        elapsed = await self.runner.enter(
            cpb.ENTRY_KIND_SAVED_LOGIN, self.login_id, fields, control_ref(page, "Next")
        )
        page = await self.runner.read()
        if not any(f.name == "token-otp_token" for f in page.fields):
            raise RuntimeError("the password step did not lead to the code step")
        return elapsed

    async def bare_password(self) -> Timed:
        page = self.bare.page
        await page.goto(self.site.login_url, wait_until="load")

        async def fill() -> None:
            await page.locator("input[name=auth-username]").fill(self.account.username)
            await page.locator("input[name=auth-password]").fill(self.account.password)

        timed = await bare_submit(page, fill, page.get_by_role("button", name="Next"))
        await page.locator("input[name=token-otp_token]").wait_for()
        return timed

    async def runner_code(self) -> float:
        await self.runner.close_session()
        await self.runner.open_session()  # signed out: a new browser session
        await self.runner_password()
        page = await self.runner.read()
        self.forget_accepted_code()
        code = await self.runner.private_entry(
            cpb.ENTRY_KIND_ONE_TIME_CODE, {"code": self.account.code()}
        )
        fields = {"code": field_ref(page, "token-otp_token")}
        elapsed = await self.runner.enter(
            cpb.ENTRY_KIND_ONE_TIME_CODE, code, fields, control_ref(page, "Next")
        )
        page = await self.runner.read()
        if "Site administration" not in page.headings:
            raise RuntimeError(f"the code did not sign in: {list(page.headings)}")
        return elapsed

    async def bare_code(self) -> Timed:
        page = await self.bare.fresh()
        await self.bare_password()
        self.forget_accepted_code()
        code = self.account.code()

        async def fill() -> None:
            await page.locator("input[name=token-otp_token]").fill(code)

        timed = await bare_submit(page, fill, page.get_by_role("button", name="Next"))
        await page.get_by_role("heading", name="Site administration").wait_for()
        return timed


# --- django-oscar's checkout: the card step --------------------------------


class OscarCard:
    """The payment details page: card number, the expiry's month and year
    selects, the security code, Continue (to the order preview; no order
    is placed). Each side signs in, puts the book in its basket and gives
    a shipping address once, untimed; each round then loads the payment
    details page afresh (the basket and address stay in the session)."""

    def __init__(self, site: OscarShopSite, runner: EntryClient, bare: Bare) -> None:
        self.site, self.runner, self.bare = site, runner, bare
        self.payment_url = site.url + "/checkout/payment-details/"

    async def open(self) -> None:
        customer = self.site.customer
        self.login_id = await self.runner.put_item(
            cpb.VaultItem(
                kind=cpb.ENTRY_KIND_SAVED_LOGIN,
                label="shop",
                origin=self.site.url,
                fields={"username": customer.email, "password": customer.password},
            )
        )
        self.card_id = await self.runner.put_item(
            cpb.VaultItem(kind=cpb.ENTRY_KIND_CARD, label="visa", fields=CARD)
        )
        await self.runner_to_card_step()
        await self.bare_to_card_step()

    async def runner_to_card_step(self) -> None:
        runner = self.runner
        await runner.open_session()
        page = await runner.navigate(self.site.login_url)
        login = page_field(page, "login-username").form_ref
        fields = {
            "username": field_ref(page, "login-username"),
            "password": field_ref(page, "login-password"),
        }
        await runner.enter(
            cpb.ENTRY_KIND_SAVED_LOGIN, self.login_id, fields, submit_in(page, login, "Log In")
        )
        page = await runner.navigate(self.site.product_url)
        await runner.click("form#add_to_basket_form button[type=submit]")
        page = await runner.navigate(self.site.url + "/checkout/")
        for name, value in ADDRESS.items():
            await runner.type_text(f"form#new_shipping_address [name={name}]", value)
        page = await runner.click("form#new_shipping_address button[type=submit]")
        page = await runner.read()
        if "Enter payment details" not in page.headings:
            raise RuntimeError(f"not at the card step: {page.url} {list(page.headings)}")

    async def bare_to_card_step(self) -> None:
        page = await self.bare.fresh()
        await page.goto(self.site.login_url)
        login = page.locator("form#login_form")
        await login.locator("input[name=login-username]").fill(self.site.customer.email)
        await login.locator("input[name=login-password]").fill(self.site.customer.password)
        await login.get_by_role("button", name="Log In").click()
        await page.get_by_role("link", name="Logout").wait_for()
        await page.goto(self.site.product_url)
        basket = page.locator("form#add_to_basket_form")
        await basket.get_by_role("button", name="Add to cart").click()
        await page.wait_for_load_state()
        await page.goto(self.site.url + "/checkout/")
        address = page.locator("form#new_shipping_address")
        for name, value in ADDRESS.items():
            await address.locator(f"[name={name}]").fill(value)
        await address.get_by_role("button", name="Continue").click()
        await page.get_by_role("heading", name="Enter payment details").wait_for()

    async def runner_card(self) -> float:
        page = await self.runner.navigate(self.payment_url)
        form = page_field(page, "number").form_ref
        code = await self.runner.private_entry(
            cpb.ENTRY_KIND_SECURITY_CODE, {"security_code": SECURITY_CODE}
        )
        fields = {
            "number": field_ref(page, "number"),
            "expiry_month": field_ref(page, "expiry_month_0"),
            "expiry_year": field_ref(page, "expiry_month_1"),
            "security_code": field_ref(page, "ccv"),
        }
        elapsed = await self.runner.enter(
            cpb.ENTRY_KIND_CARD,
            self.card_id,
            fields,
            submit_in(page, form, "Continue"),
            companion_entry_id=code,
        )
        page = await self.runner.read()
        if "Preview order" not in page.headings:
            raise RuntimeError(f"the card did not lead to the preview: {list(page.headings)}")
        return elapsed

    async def bare_card(self) -> Timed:
        page = self.bare.page
        await page.goto(self.payment_url, wait_until="load")
        card = page.locator("form#bankcard_form")
        month, year = CARD["expiry"].split("/")

        async def fill() -> None:
            await card.locator("input[name=number]").fill(CARD["number"])
            await card.locator("select[name=expiry_month_0]").select_option(month)
            await card.locator("select[name=expiry_month_1]").select_option(f"20{year}")
            await card.locator("input[name=ccv]").fill(SECURITY_CODE)

        timed = await bare_submit(page, fill, card.get_by_role("button", name="Continue"))
        await page.get_by_role("heading", name="Preview order").wait_for()
        return timed


# --- django-allauth: the emailed code's page -------------------------------


class AllauthCode:
    """The code page: the code the site mailed, Confirm. Each round, in a
    new browser session (the last one signed in), the code is requested for
    the account's address and read from the site's outbox, untimed."""

    def __init__(self, site: AllauthCodeSite, runner: EntryClient, bare: Bare) -> None:
        self.site, self.runner, self.bare = site, runner, bare

    async def open(self) -> None:
        await self.runner.open_session()

    async def mailed_code(self, before: int) -> str:
        for _ in range(200):  # 10 s
            codes = self.site.codes_sent()
            if len(codes) > before:
                return codes[-1]
            await asyncio.sleep(0.05)
        raise RuntimeError("the site mailed no code")

    async def runner_code(self) -> float:
        runner = self.runner
        await runner.close_session()
        await runner.open_session()  # signed out: a new browser session
        before = len(self.site.codes_sent())
        page = await runner.navigate(self.site.request_code_url)
        await runner.type_text(field_ref(page, "email"), self.site.account.email)
        await runner.click(control_ref(page, "Request Code"))
        page = await runner.read()
        entry = await runner.private_entry(
            cpb.ENTRY_KIND_ONE_TIME_CODE, {"code": await self.mailed_code(before)}
        )
        elapsed = await runner.enter(
            cpb.ENTRY_KIND_ONE_TIME_CODE,
            entry,
            {"code": field_ref(page, "code")},
            control_ref(page, "Confirm"),
        )
        page = await runner.read()
        if "Email Addresses" not in page.headings:
            raise RuntimeError(f"the code did not sign in: {list(page.headings)}")
        return elapsed

    async def bare_code(self) -> Timed:
        page = await self.bare.fresh()
        before = len(self.site.codes_sent())
        await page.goto(self.site.request_code_url)
        await page.fill("input[name=email]", self.site.account.email)
        await page.get_by_role("button", name="Request Code").click()
        await page.get_by_role("heading", name="Enter Sign-In Code").wait_for()
        code = await self.mailed_code(before)

        async def fill() -> None:
            await page.locator("input[name=code]").fill(code)

        timed = await bare_submit(page, fill, page.get_by_role("button", name="Confirm"))
        await page.get_by_role("heading", name="Email Addresses").wait_for()
        return timed


# --- the run ----------------------------------------------------------------


@dataclass(frozen=True)
class Bench:
    name: str
    runner: Callable[[], Awaitable[float]]
    bare: Callable[[], Awaitable[Timed]]
    # The site's own record afterwards: (method, path, status) seen once per entry.
    answered: tuple[str, str, int]


async def measure(bench: Bench) -> tuple[list[float], list[Timed]]:
    bared: list[Timed] = []

    async def bare_entry() -> float:
        bared.append(await bench.bare())
        return bared[-1].click

    entered, _ = await alternate(bench.runner, bare_entry, WARMUP, ENTRIES)
    return entered, bared[WARMUP:]


def check_answered(site, bench: Bench) -> None:
    method, path, status = bench.answered
    seen = site.server.requests(method, path).count(status)
    expected = 2 * (WARMUP + ENTRIES)
    if seen != expected:
        raise RuntimeError(f"{bench.name}: the site answered {seen} entries, expected {expected}")


def report(bench: Bench, entered: list[float], bared: list[Timed]) -> None:
    entry_p50, _ = percentiles(entered)
    click_p50, _ = percentiles([t.click for t in bared])
    answer_p50, _ = percentiles([t.answer for t in bared])
    print(
        f"  {bench.name:<24} {entry_p50:10.1f} ms {click_p50:8.1f} ms {entry_p50 / click_p50:6.2f}"
        f" {answer_p50:10.1f} ms {entry_p50 / answer_p50:6.2f} {len(entered):4d}"
    )


def canaries_logged(texts: list[str], values: list[str]) -> list[int]:
    """Which of `values` (by position, never the value) appear in `texts`."""
    return [n for n, v in enumerate(values) if any(v in t.replace(" ", "") for t in texts)]


async def run_app(name, build, start, make, benches, runner, bare, scratch, **site_env) -> str:
    """One application: its site started, its page(s) measured, it stopped.
    Returns the site's own log, for the check that no value is in it."""
    (scratch / f"{name}-template").mkdir()
    (scratch / name).mkdir()
    template = await build(TEMPLATES, scratch / f"{name}-template")
    directory = scratch / name
    site = await start(template, directory, **site_env)
    try:
        app = make(site, runner, bare)
        await app.open()
        for bench in benches(app):
            entered, bared = await measure(bench)
            check_answered(site, bench)
            report(bench, entered, bared)
        await runner.close_session()
        return site.server.log_text()
    finally:
        site.stop()


async def main() -> None:
    TEMPLATES.mkdir(parents=True, exist_ok=True)
    database_url = create_test_database()
    processes: list[subprocess.Popen] = []
    chromium, runner, bare = None, None, None
    site_logs: list[str] = []
    try:
        claims_addr, browser_addr = await start_claims_and_browser(
            service_env(database_url), processes
        )
        chromium = await Chromium.launch()
        runner, bare = EntryClient(browser_addr, claims_addr), Bare(chromium)
        print(
            f"EnterPrivate on real web applications: {os.cpu_count()} cores,"
            f" {ENTRIES} entries each (after {WARMUP} warm-up), playwright {version('playwright')}"
        )
        print(
            f"  {'page':<24} {'EnterPrivate':>13} {'bare':>11} {'ratio':>6}"
            f" {'bare+answer':>13} {'ratio':>6} {'N':>4}   (p50)"
        )
        with tempfile.TemporaryDirectory(prefix="app-entry-bench-") as scratch_dir:
            scratch = pathlib.Path(scratch_dir)
            site_logs.append(
                await run_app(
                    "twofactor",
                    twofactor_admin_database,
                    start_twofactor_admin,
                    TwoFactor,
                    lambda app: [
                        Bench(
                            "2FA admin: password",
                            app.runner_password,
                            app.bare_password,
                            ("POST", "/account/login/", 200),
                        ),
                        Bench(
                            "2FA admin: TOTP code",
                            app.runner_code,
                            app.bare_code,
                            ("POST", "/account/login/", 302),
                        ),
                    ],
                    runner,
                    bare,
                    scratch,
                )
            )
            site_logs.append(
                await run_app(
                    "oscar",
                    oscar_shop_database,
                    start_oscar_shop,
                    OscarCard,
                    lambda app: [
                        Bench(
                            "oscar: card step",
                            app.runner_card,
                            app.bare_card,
                            ("POST", "/checkout/preview/", 200),
                        )
                    ],
                    runner,
                    bare,
                    scratch,
                )
            )
            site_logs.append(
                await run_app(
                    "allauth",
                    allauth_code_database,
                    start_allauth_code,
                    AllauthCode,
                    lambda app: [
                        Bench(
                            "allauth: emailed code",
                            app.runner_code,
                            app.bare_code,
                            ("POST", "/accounts/login/code/confirm/", 302),
                        )
                    ],
                    runner,
                    bare,
                    scratch,
                    NODTEST_SITE_RATE_LIMITS="off",
                )
            )
    finally:
        if runner is not None:
            await runner.close()
        if bare is not None:
            await bare.close()
        if chromium is not None:
            await chromium.close()
        for process in processes:
            process.kill()
            process.wait()
        drop_test_database(database_url)
    logs = [(LOGS / name).read_text(errors="replace") for name in ("claims.log", "browser.log")]
    leaked = canaries_logged([*site_logs, *logs], [CARD["number"], CANARY_PASSWORD])
    if leaked:
        raise RuntimeError(f"private values {leaked} (by position) are in a log")


if __name__ == "__main__":
    asyncio.run(main())
