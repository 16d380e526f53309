"""`make bench`: what each Debian Chromium build costs the browser service in
CPU, with nod's own launch arguments: `chromium-headless-shell` (what the
service looks for first) against the full `chromium` in its headless mode.

Per build, in rounds that alternate the two (BENCH_CHROMIUM_ROUNDS, 3):

  open:  a new context, a page, one load of a small form page from a local
         site, and the context closed (a task's session, start to end),
         BENCH_CHROMIUM_OPENS (10) times; CPU and wall time per open.
  idle:  pages open and loaded (BENCH_CHROMIUM_PAGES, 4: tasks waiting for
         their person) and nothing done for BENCH_CHROMIUM_IDLE_S (5);
         CPU per page per second, as a share of one core, and the memory
         each page added (the Pss of the driver and its Chromium).

CPU is every process of that Chromium (the browser, its renderers, its GPU
and utility processes) from /proc, user and system time. Prints a table and
one JSON line of the figures; the ratio is the headless shell's over the
full build's, in the same round."""

import asyncio
import json
import os
import pathlib
import shutil
import statistics
import sys
import time

from aiohttp import web
from playwright.async_api import Browser, async_playwright

from nodtest.proc import TICKS_PER_S, cpu_ticks, family, stat_fields, tree_pss_mib

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "services" / "browser" / "src"))
from nod_browser.adapters.chromium import LAUNCH_ARGS  # noqa: E402

BUILDS = ("chromium-headless-shell", "chromium")
ROUNDS = int(os.environ.get("BENCH_CHROMIUM_ROUNDS", "3"))
OPENS = int(os.environ.get("BENCH_CHROMIUM_OPENS", "10"))
PAGES = int(os.environ.get("BENCH_CHROMIUM_PAGES", "4"))
IDLE_S = float(os.environ.get("BENCH_CHROMIUM_IDLE_S", "5"))
FORM = (
    "<!doctype html><title>Sign in</title><h1>Sign in</h1>"
    "<form method=post><label>Email <input name=email></label>"
    "<label>Password <input type=password name=password></label><button>Sign in</button></form>"
)


def chromium_cpu_s(driver: int) -> float:
    """CPU seconds of the driver's descendants (its Chromium), user and
    system, from /proc."""
    ticks = sum(cpu_ticks(fields) for pid in family(driver)[1:] if (fields := stat_fields(pid)))
    return ticks / TICKS_PER_S


def driver_pid() -> int:
    """This process's Playwright driver (node): Chromium is its child."""
    for pid in family(os.getpid())[1:]:
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
                if b"playwright/driver" in cmdline.read():
                    return pid
        except OSError:
            continue
    raise RuntimeError("no Playwright driver under this process")


async def site() -> tuple[web.AppRunner, str]:
    async def form(request: web.Request) -> web.Response:
        return web.Response(text=FORM, content_type="text/html")

    app = web.Application()
    app.add_routes([web.get("/", form)])
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    server = web.TCPSite(runner, "127.0.0.1", 0)
    await server.start()
    port = runner.addresses[0][1]
    return runner, f"http://127.0.0.1:{port}/"


async def one_round(browser: Browser, driver: int, url: str) -> dict[str, float]:
    began_cpu, began = chromium_cpu_s(driver), time.monotonic()
    for _ in range(OPENS):
        context = await browser.new_context(service_workers="block")
        page = await context.new_page()
        await page.goto(url)
        await context.close()
    open_cpu = (chromium_cpu_s(driver) - began_cpu) / OPENS
    open_wall = (time.monotonic() - began) / OPENS
    before_pss = tree_pss_mib(driver)
    contexts = [await browser.new_context(service_workers="block") for _ in range(PAGES)]
    for context in contexts:
        await (await context.new_page()).goto(url)
    await asyncio.sleep(1)  # past the load's own work
    began_cpu = chromium_cpu_s(driver)
    await asyncio.sleep(IDLE_S)
    idle_share = (chromium_cpu_s(driver) - began_cpu) / IDLE_S / PAGES
    pss_per_page = (tree_pss_mib(driver) - before_pss) / PAGES
    for context in contexts:
        await context.close()
    return {
        "open_cpu_ms": open_cpu * 1000,
        "open_wall_ms": open_wall * 1000,
        "idle_core_share_per_page": idle_share,
        "pss_mib_per_page": pss_per_page,
    }


async def main() -> None:
    paths = {build: shutil.which(build) for build in BUILDS}
    if not all(paths.values()):
        sys.exit(f"chromium bench: needs both of {', '.join(BUILDS)} on PATH: {paths}")
    runner, url = await site()
    figures: dict[str, list[dict[str, float]]] = {build: [] for build in BUILDS}
    async with async_playwright() as playwright:
        driver = driver_pid()
        for _ in range(ROUNDS):
            for build in BUILDS:
                browser = await playwright.chromium.launch(
                    executable_path=paths[build], headless=True, args=LAUNCH_ARGS
                )
                await asyncio.sleep(1)
                figures[build].append(await one_round(browser, driver, url))
                await browser.close()
    await runner.cleanup()
    shell, full = (figures[build] for build in BUILDS)
    print(
        f"{'round':>5} {'build':<24} {'open CPU ms':>11} {'open wall ms':>12}"
        f" {'idle core/page':>14} {'Pss MiB/page':>12}"
    )
    for number, (mine, theirs) in enumerate(zip(shell, full, strict=True), 1):
        for build, got in ((BUILDS[0], mine), (BUILDS[1], theirs)):
            print(
                f"{number:>5} {build:<24} {got['open_cpu_ms']:>11.0f} {got['open_wall_ms']:>12.0f}"
                f" {got['idle_core_share_per_page']:>14.3f} {got['pss_mib_per_page']:>12.1f}"
            )
        print(
            f"{number:>5} {'shell / full':<24} {mine['open_cpu_ms'] / theirs['open_cpu_ms']:>11.2f}"
            f" {mine['open_wall_ms'] / theirs['open_wall_ms']:>12.2f}"
        )
    summary = {
        build: {key: statistics.median(r[key] for r in figures[build]) for key in figures[build][0]}
        for build in BUILDS
    }
    print(json.dumps({"chromium_bench": summary, "rounds": ROUNDS, "pages": PAGES}))


if __name__ == "__main__":
    asyncio.run(main())
