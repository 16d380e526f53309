"""A small site on loopback under two origins at once (127.0.0.1 and
localhost on one port), for pages whose frames must be cross-origin, as
hosted card fields are."""

import contextlib
from collections.abc import AsyncIterator

from aiohttp import web


@contextlib.asynccontextmanager
async def two_origin_site(routes: list[web.RouteDef]) -> AsyncIterator[tuple[str, str]]:
    """Serves `routes`; yields the page's base URL and the frames' (the same
    server, another origin)."""
    app = web.Application()
    app.add_routes(routes)
    runner = web.AppRunner(app, access_log=None, shutdown_timeout=0.5)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", 0).start()
    port = runner.addresses[0][1]
    try:
        yield f"http://127.0.0.1:{port}", f"http://localhost:{port}"
    finally:
        await runner.cleanup()
