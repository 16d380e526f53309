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
    app = web.Application()
    app.add_routes(routes)
    runner = web.AppRunner(app, access_log=None, shutdown_timeout=0.5)
    await runner.setup()
    await web.TCPSite(runner, SITE_HOST, 0).start()
    port = runner.addresses[0][1]
    await web.TCPSite(runner, OTHER_SITE_HOST, port).start()
    try:
        yield f"http://{SITE_HOST}:{port}", f"http://{OTHER_SITE_HOST}:{port}"
    finally:
        await runner.cleanup()
