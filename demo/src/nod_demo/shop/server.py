"""The shop as an aiohttp application, started in-process (tests) or by
`python -m nod_demo.shop`."""

from collections.abc import Iterable
from dataclasses import dataclass

from aiohttp import web

from nod_demo.shop.control import control
from nod_demo.shop.routes import routes
from nod_demo.shop.state import STATE, Account, ShopState
from nod_demo.shop.submissions import dropped_connections


def make_app(state: ShopState) -> web.Application:
    app = web.Application(middlewares=[dropped_connections])
    app[STATE] = state
    app.add_routes(routes)
    app.add_routes(control)
    return app


@dataclass
class RunningShop:
    url: str
    state: ShopState
    runner: web.AppRunner

    @property
    def origin(self) -> str:
        return self.url

    async def close(self) -> None:
        self.state.release()  # held submissions answer instead of hanging shutdown
        await self.runner.cleanup()


# The browser never reaches 127.0.0.1 (the services' address): local sites
# live on 127.0.0.2 and up (NOD_BROWSER_ALLOWED_NETWORKS allows them).
DEFAULT_HOST = "127.0.0.2"


async def start_shop(
    accounts: Iterable[Account] = (),
    *,
    host: str = DEFAULT_HOST,
    port: int = 0,
    also_on: Iterable[str] = (),
) -> RunningShop:
    """also_on: more hosts to answer on, at the same port (another origin of
    the same shop)."""
    state = ShopState()
    for account in accounts:
        state.add_account(account)
    runner = web.AppRunner(make_app(state), access_log=None, shutdown_timeout=1.0)
    await runner.setup()
    site = web.TCPSite(runner, host, port)
    await site.start()
    bound_port = runner.addresses[0][1]
    for other in also_on:
        await web.TCPSite(runner, other, bound_port).start()
    return RunningShop(f"http://{host}:{bound_port}", state, runner)
