"""EnterPrivate beside a bare Playwright fill + fill + click, in one run.

A claims service and a browser runner as their own processes (as deployed),
the demo shop as its own process, and in this process a bare Playwright
driving Chromium launched the way the runner launches it (the same binary
and flags). Each round signs in to the shop twice: once with EnterPrivate (a
saved login: claim, fill username and password, press Sign in, MarkSubmitted)
and once bare (fill, fill, click) on the same page. Rounds alternate the two,
so whatever else the machine does falls on both alike. Only the entry is
timed; the page is loaded before each one, untimed.

BENCH_ENTRIES (default 100) rounds after BENCH_WARMUP (default 10).
"""

import asyncio
import base64
import json
import os
import pathlib
import secrets
import socket
import statistics
import subprocess
import sys
import time
import urllib.request
import uuid
from importlib.metadata import version
from urllib.parse import urlsplit

from pydantic import SecretStr

from nod.browser.v1 import browser_pb2 as bpb
from nod.browser.v1 import browser_pb2_grpc
from nod.claims.v1 import claims_pb2 as cpb
from nod.claims.v1 import claims_pb2_grpc
from nod_browser.adapters.chromium import Chromium
from nodkit.client import call_metadata, open_channel
from nodtest.addresses import BROWSER_ALLOWED_NETWORKS, SITE_HOST
from nodtest.database import create_test_database, drop_test_database
from nodtest.processes import free_port, run_migrate, wait_until_serving

ROOT = pathlib.Path(__file__).resolve().parent.parent
LOGS = ROOT / "var" / "bench"
ENTRIES = int(os.environ.get("BENCH_ENTRIES", "100"))
WARMUP = int(os.environ.get("BENCH_WARMUP", "10"))
TOKEN = SecretStr(secrets.token_urlsafe(16))
USERNAME, PASSWORD = "ada@example.com", f"bench-{secrets.token_hex(6)}"


def start(module: str, args: list[str], env: dict[str, str], log_name: str) -> subprocess.Popen:
    log = (LOGS / log_name).open("wb")
    return subprocess.Popen(
        [sys.executable, "-m", module, *args],
        env={**os.environ, **env},
        stdout=log,
        stderr=subprocess.STDOUT,
    )


async def wait_for_port(port: int, timeout_s: float = 30.0, host: str = "127.0.0.1") -> None:
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            socket.create_connection((host, port), timeout=1).close()
            return
        except OSError:
            if time.monotonic() > deadline:
                raise
            await asyncio.sleep(0.1)


def service_env(database_url: str) -> dict[str, str]:
    return {
        "NOD_DATABASE_URL": database_url,
        "NOD_SERVICE_TOKEN": TOKEN.get_secret_value(),
        "NOD_VAULT_KEY": base64.b64encode(os.urandom(32)).decode(),
    }


async def start_claims_and_browser(
    env: dict[str, str], processes: list[subprocess.Popen]
) -> tuple[str, str]:
    """A claims service and a browser runner as their own processes (as
    deployed), added to `processes`; their addresses once both serve."""
    await asyncio.to_thread(run_migrate, "nod_claims", env)
    claims_addr = f"127.0.0.1:{free_port()}"
    browser_addr = f"127.0.0.1:{free_port()}"
    processes.append(
        start(
            "nod_claims",
            ["serve"],
            env | {"NOD_CLAIMS_LISTEN": claims_addr, "NOD_INSTANCE_ID": "bench-claims"},
            "claims.log",
        )
    )
    processes.append(
        start(
            "nod_browser",
            ["serve"],
            env
            | {
                "NOD_BROWSER_LISTEN": browser_addr,
                "NOD_CLAIMS_ADDR": claims_addr,
                # The sites measured live on 127.0.0.2 and up (nodtest.addresses).
                "NOD_BROWSER_ALLOWED_NETWORKS": BROWSER_ALLOWED_NETWORKS,
                "NOD_INSTANCE_ID": "bench-browser",
            },
            "browser.log",
        )
    )
    await wait_until_serving(claims_addr)
    await wait_until_serving(browser_addr)
    return claims_addr, browser_addr


def percentiles(seconds: list[float]) -> tuple[float, float]:
    ordered = sorted(seconds)
    p99 = ordered[max(int(len(ordered) * 0.99) - 1, 0)]
    return statistics.median(ordered) * 1000, p99 * 1000


class EntryClient:
    """EnterPrivate through the browser runner, the way tasks calls it: the
    vault, one browser session, and the calls a task makes around an entry
    (pattern_entry_bench.py and app_entry_bench.py use it too)."""

    def __init__(self, browser_addr: str, claims_addr: str) -> None:
        self.meta = call_metadata(TOKEN, "bench-person")
        self._channels = [open_channel(browser_addr), open_channel(claims_addr)]
        self.browser = browser_pb2_grpc.BrowserServiceStub(self._channels[0])
        self.vault = claims_pb2_grpc.VaultServiceStub(self._channels[1])
        self.claims = claims_pb2_grpc.ClaimsServiceStub(self._channels[1])
        self.session_id = ""
        # The last page's origin: what a private form is for, and the shop a
        # card is bound to, as the tasks and payments services would (G13).
        self.origin = ""

    async def put_item(self, item: cpb.VaultItem) -> str:
        return (await self.vault.PutItem(cpb.PutItemRequest(item=item), metadata=self.meta)).item.id

    async def open_session(self) -> None:
        opened = await self.browser.OpenSession(
            bpb.OpenSessionRequest(task_id="bench-task"), metadata=self.meta
        )
        self.session_id = opened.session_id

    async def close_session(self) -> None:
        request = bpb.CloseSessionRequest(session_id=self.session_id)
        await self.browser.CloseSession(request, metadata=self.meta)

    def _seen(self, page: bpb.Page) -> bpb.Page:
        parts = urlsplit(page.url)
        if parts.scheme in ("http", "https"):
            self.origin = f"{parts.scheme}://{parts.netloc}"
        return page

    async def navigate(self, url: str) -> bpb.Page:
        request = bpb.NavigateRequest(session_id=self.session_id, url=url)
        return self._seen(
            (await self.browser.Navigate(request, metadata=self.meta, timeout=30)).page
        )

    async def read(self) -> bpb.Page:
        request = bpb.ReadPageRequest(session_id=self.session_id, settle=True)
        return self._seen(
            (await self.browser.ReadPage(request, metadata=self.meta, timeout=30)).page
        )

    async def click(self, target: str) -> bpb.Page:
        request = bpb.ClickRequest(session_id=self.session_id, target=target)
        return self._seen((await self.browser.Click(request, metadata=self.meta, timeout=30)).page)

    async def type_text(self, target: str, text: str) -> bpb.Page:
        request = bpb.TypeTextRequest(session_id=self.session_id, target=target, text=text)
        return (await self.browser.TypeText(request, metadata=self.meta, timeout=30)).page

    async def private_entry(self, kind: int, fields: dict[str, str]) -> str:
        """Typed for the page read last (a security code goes with its card)."""
        where = {} if kind == cpb.ENTRY_KIND_SECURITY_CODE else {"origin": self.origin}
        request = cpb.PutPrivateEntryRequest(
            task_id="bench-task", kind=kind, fields=fields, **where
        )
        return (await self.vault.PutPrivateEntry(request, metadata=self.meta)).id

    async def enter(
        self, kind: int, item_id: str, fields: dict[str, str], submit: str, **extra
    ) -> float:
        """One EnterPrivate, timed; it must have submitted."""
        request = bpb.EnterPrivateRequest(
            session_id=self.session_id,
            operation_id=f"bench-{uuid.uuid4().hex}",
            kind=kind,
            item_id=item_id,
            fields=fields,
            submit=submit,
            **extra,
        )
        if kind == cpb.ENTRY_KIND_CARD:
            # As the payments service binds a card entry when it starts.
            bind = cpb.BindCardEntryRequest(
                operation_id=request.operation_id,
                item_id=item_id,
                task_id="bench-task",
                merchant_origin=self.origin,
            )
            await self.claims.BindCardEntry(bind, metadata=self.meta)
        started = time.perf_counter()
        reply = await self.browser.EnterPrivate(request, metadata=self.meta, timeout=60)
        elapsed = time.perf_counter() - started
        if not reply.entered or reply.claim.state != cpb.CLAIM_STATE_SUBMITTED:
            raise RuntimeError(
                f"EnterPrivate did not submit: {reply.claim.state} {reply.claim.reason}"
            )
        return elapsed

    async def close(self) -> None:
        for channel in self._channels:
            await channel.close()


class Runner(EntryClient):
    """The demo shop's sign-in through the runner."""

    def __init__(self, browser_addr: str, claims_addr: str, shop_url: str) -> None:
        super().__init__(browser_addr, claims_addr)
        self.shop_url = shop_url

    async def open(self) -> None:
        item = cpb.VaultItem(
            kind=cpb.ENTRY_KIND_SAVED_LOGIN,
            label="demo shop",
            origin=self.shop_url,
            fields={"username": USERNAME, "password": PASSWORD},
        )
        self.item_id = await self.put_item(item)
        await self.open_session()

    async def one_entry(self) -> float:
        page = await self.navigate(f"{self.shop_url}/login")
        fields = {f.name: f.ref for f in page.fields if f.name in ("username", "password")}
        submit = next(c.ref for c in page.controls if c.kind == "submit")
        return await self.enter(cpb.ENTRY_KIND_SAVED_LOGIN, self.item_id, fields, submit)


class Bare:
    """Playwright alone: fill, fill, click, on the same shop page."""

    def __init__(self, chromium: Chromium, shop_url: str) -> None:
        self._chromium = chromium
        self.shop_url = shop_url

    async def open(self) -> None:
        self._context = await self._chromium.new_context(None)  # bare: no address guard
        self.page = await self._context.new_page()

    async def one_entry(self) -> float:
        await self.page.goto(f"{self.shop_url}/login", wait_until="load")
        started = time.perf_counter()
        await self.page.locator("#username").fill(USERNAME)
        await self.page.locator("#password").fill(PASSWORD)
        await self.page.locator("button[type=submit]").click()
        return time.perf_counter() - started

    async def close(self) -> None:
        await self._context.close()


def shop_sign_ins(shop_url: str) -> int:
    with urllib.request.urlopen(f"{shop_url}/_control/counts", timeout=10) as reply:
        return json.load(reply)["counts"]["login"]


async def measure(runner: Runner, bare: Bare) -> tuple[list[float], list[float]]:
    for _ in range(WARMUP):
        await runner.one_entry()
        await bare.one_entry()
    entered, bared = [], []
    for _ in range(ENTRIES):
        entered.append(await runner.one_entry())
        bared.append(await bare.one_entry())
    return entered, bared


async def main() -> None:
    LOGS.mkdir(parents=True, exist_ok=True)
    database_url = create_test_database()
    processes: list[subprocess.Popen] = []
    chromium = None
    try:
        env = service_env(database_url)
        claims_addr, browser_addr = await start_claims_and_browser(env, processes)
        shop_port = free_port()
        processes.append(
            start(
                "nod_demo.shop",
                [
                    "--host",
                    SITE_HOST,
                    "--port",
                    str(shop_port),
                    "--account",
                    f"{USERNAME}:{PASSWORD}",
                ],
                {},
                "shop.log",
            )
        )
        shop_url = f"http://{SITE_HOST}:{shop_port}"
        await wait_for_port(shop_port, host=SITE_HOST)

        chromium = await Chromium.launch()
        runner, bare = Runner(browser_addr, claims_addr, shop_url), Bare(chromium, shop_url)
        await runner.open()
        await bare.open()
        entered, bared = await measure(runner, bare)
        received = await asyncio.to_thread(shop_sign_ins, shop_url)
        await runner.close()
        await bare.close()

        entry_p50, entry_p99 = percentiles(entered)
        bare_p50, bare_p99 = percentiles(bared)
        print(
            f"EnterPrivate benchmark: {os.cpu_count()} cores, {ENTRIES} entries each"
            f" (after {WARMUP} warm-up), playwright {version('playwright')}"
        )
        print(f"  EnterPrivate            p50 {entry_p50:7.1f} ms   p99 {entry_p99:7.1f} ms")
        print(f"  bare fill+fill+click    p50 {bare_p50:7.1f} ms   p99 {bare_p99:7.1f} ms")
        print(
            f"  EnterPrivate / bare = {entry_p50 / bare_p50:.2f} at p50,"
            f" {entry_p99 / bare_p99:.2f} at p99"
        )
        expected = 2 * (WARMUP + ENTRIES)
        if received != expected:
            raise RuntimeError(f"the shop received {received} sign-ins, expected {expected}")
    finally:
        if chromium is not None:
            await chromium.close()
        for process in processes:
            process.kill()
            process.wait()
        drop_test_database(database_url)


if __name__ == "__main__":
    asyncio.run(main())
