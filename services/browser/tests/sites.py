"""A small site on loopback under two origins at once (127.0.0.2 and
127.0.0.3 on one port), for pages whose frames must be cross-origin, as
hosted card fields are."""

import contextlib
from collections.abc import AsyncIterator

from aiohttp import web

from nodtest.addresses import OTHER_SITE_HOST, SITE_HOST


@contextlib.asynccontextmanager
async def two_origin_site(routes: list[web.RouteDef]) -> AsyncIterator[tuple[str, str]]:
    """Serves `routes`; yields the page's base URL and the frames' (the same
    server, another origin)."""
    async with site_on((SITE_HOST, OTHER_SITE_HOST), routes) as (page, frame):
        yield page, frame


@contextlib.asynccontextmanager
async def site_on(hosts: tuple[str, ...], routes: list[web.RouteDef]) -> AsyncIterator[list[str]]:
    """Serves `routes` on each of `hosts` at one port; yields their base URLs."""
    app = web.Application()
    app.add_routes(routes)
    runner = web.AppRunner(app, access_log=None, shutdown_timeout=0.5)
    await runner.setup()
    await web.TCPSite(runner, hosts[0], 0).start()
    port = runner.addresses[0][1]
    for host in hosts[1:]:
        await web.TCPSite(runner, host, port).start()
    try:
        yield [f"http://{host}:{port}" for host in hosts]
    finally:
        await runner.cleanup()
