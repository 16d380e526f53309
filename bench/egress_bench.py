"""What the browser's address guard costs a page load: the same pages loaded
by Chromium through the runner's egress proxy (adapters/egress_proxy.py)
and without it, rounds alternating.

In this process: the demo shop (its product page), the pattern sites (the
checkout, whose card fields are three frames from a second origin) and a
page of 30 subresources (10 stylesheets, 10 scripts, 10 images, none
cacheable; over http, then over https, which the proxy tunnels), all on
127.0.0.2/127.0.0.3 like every test site; one Chromium
launched with the runner's arguments, one context through the proxy (as a
session's is) and one without. Each load is `goto(url, wait_until="load")`
in a new page, timed; the proxy forwards each plain-http request on an
upstream connection of its own, so the subresource page is its worst case.

BENCH_EGRESS_ROUNDS (default 15) rounds per page after BENCH_EGRESS_WARMUP
(default 2).
"""

import asyncio
import os
import ssl
import statistics
import time
from importlib.metadata import version

import trustme
from aiohttp import web
from playwright.async_api import BrowserContext, async_playwright

from nod_browser.adapters.chromium import LAUNCH_ARGS, find_chromium
from nod_browser.adapters.egress_proxy import EgressProxy
from nod_demo.shop import start_shop
from nodkit.networks import parse_networks
from nodtest.addresses import BROWSER_ALLOWED_NETWORKS, SITE_HOST
from nodtest.patterns import start_patterns

ROUNDS = int(os.environ.get("BENCH_EGRESS_ROUNDS", "15"))
WARMUP = int(os.environ.get("BENCH_EGRESS_WARMUP", "2"))
SUBRESOURCES = 10  # of each kind
NO_STORE = {"Cache-Control": "no-store"}
PIXEL = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360000002000100e221bc330000000049454e44ae426082"
)


def many_page() -> str:
    parts = [f'<link rel="stylesheet" href="/r/{i}.css">' for i in range(SUBRESOURCES)]
    parts += [f'<script src="/r/{i}.js"></script>' for i in range(SUBRESOURCES)]
    parts += [f'<img src="/r/{i}.png" alt="">' for i in range(SUBRESOURCES)]
    return "<!doctype html><html><head><title>many</title></head><body>" + "".join(parts)


async def start_many() -> tuple[web.AppRunner, str, str]:
    """The page over http and over https (a throwaway CA's certificate)."""

    async def page(request):
        return web.Response(text=many_page(), content_type="text/html", headers=NO_STORE)

    async def resource(request):
        name = request.match_info["name"]
        if name.endswith(".png"):
            return web.Response(body=PIXEL, content_type="image/png", headers=NO_STORE)
        kind = "text/css" if name.endswith(".css") else "text/javascript"
        body = f"/* {name} */ " + "x" * 2000 if kind == "text/css" else f"var r_{name[0]} = 1;"
        return web.Response(text=body, content_type=kind, headers=NO_STORE)

    app = web.Application()
    app.add_routes([web.get("/many", page), web.get("/r/{name}", resource)])
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    await web.TCPSite(runner, SITE_HOST, 0).start()
    tls = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    trustme.CA().issue_cert(SITE_HOST).configure_cert(tls)
    await web.TCPSite(runner, SITE_HOST, 0, ssl_context=tls).start()
    http_port, https_port = (address[1] for address in runner.addresses)
    return (
        runner,
        f"http://{SITE_HOST}:{http_port}/many",
        f"https://{SITE_HOST}:{https_port}/many",
    )


async def load_ms(context: BrowserContext, url: str) -> float:
    page = await context.new_page()
    try:
        started = time.perf_counter()
        await page.goto(url, wait_until="load")
        return (time.perf_counter() - started) * 1000
    finally:
        await page.close()


async def measure(guarded: BrowserContext, bare: BrowserContext, url: str) -> tuple[float, float]:
    """p50 of each, rounds alternating which goes first."""
    timed: dict[str, list[float]] = {"guarded": [], "bare": []}
    contexts = {"guarded": guarded, "bare": bare}
    for round_ in range(WARMUP + ROUNDS):
        order = ["guarded", "bare"] if round_ % 2 == 0 else ["bare", "guarded"]
        for name in order:
            ms = await load_ms(contexts[name], url)
            if round_ >= WARMUP:
                timed[name].append(ms)
    return statistics.median(timed["guarded"]), statistics.median(timed["bare"])


async def main() -> None:
    shop = await start_shop()
    patterns = await start_patterns()
    many_runner, many_url, many_tls_url = await start_many()
    egress = EgressProxy(parse_networks(BROWSER_ALLOWED_NETWORKS))
    await egress.start()
    playwright = await async_playwright().start()
    try:
        browser = await playwright.chromium.launch(
            executable_path=find_chromium(), headless=True, args=LAUNCH_ARGS
        )
        # The https page's certificate is a throwaway CA's.
        guarded = await browser.new_context(
            proxy=egress.proxy_for("bench"), ignore_https_errors=True
        )
        bare = await browser.new_context(ignore_https_errors=True)
        pages = {
            "demo shop /product": f"{shop.url}/product",
            "pattern shop /checkout (3 frames)": f"{patterns.url}/checkout",
            f"{3 * SUBRESOURCES} subresources": many_url,
            f"{3 * SUBRESOURCES} subresources, https": many_tls_url,
        }
        print(
            f"Egress benchmark: {os.cpu_count()} cores, {ROUNDS} loads each (after {WARMUP}"
            f" warm-up), alternating; playwright {version('playwright')}"
        )
        for name, url in pages.items():
            with_guard, without = await measure(guarded, bare, url)
            print(
                f"  {name:36} through the guard p50 {with_guard:6.1f} ms"
                f"   without p50 {without:6.1f} ms   ratio {with_guard / without:4.2f}"
            )
        await browser.close()
    finally:
        await playwright.stop()
        await egress.close()
        await many_runner.cleanup()
        await patterns.close()
        await shop.close()


if __name__ == "__main__":
    asyncio.run(main())
