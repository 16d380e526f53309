"""A plain sign-in page of the kind many sites serve, standing in for one
nobody here wrote: a form posted to the server, answered with a redirect
to the next page, whose head loads an ordinary script (here a slow one) before
the body is parsed. It counts every sign-in it receives."""

import asyncio
from dataclasses import dataclass

from aiohttp import web

from nodtest.addresses import SITE_HOST

PASSWORD = "the-right-password"


def page(title: str, body: str, *, slow_head: bool) -> str:
    script = '<script src="/app.js"></script>' if slow_head else ""
    return (
        f"<!doctype html><html><head><title>{title}</title>{script}</head>"
        f"<body><main><h1>{title}</h1>{body}</main></body></html>"
    )


FORM = (
    '<form method="post" action="/session"><label>Email <input name="email"></label>'
    '<label>Password <input type="password" name="password"></label>'
    "<button>Sign in</button></form>"
)


@dataclass
class StockSignIn:
    url: str = ""
    sign_ins: int = 0
    # How long the script in the next page's head takes to arrive.
    script_delay_s: float = 2.0
    _runner: web.AppRunner | None = None

    async def start(self) -> "StockSignIn":
        app = web.Application()
        app.router.add_get("/login", self._login)
        app.router.add_post("/session", self._session)
        app.router.add_get("/account", self._account)
        app.router.add_get("/app.js", self._script)
        self._runner = web.AppRunner(app, access_log=None, shutdown_timeout=1.0)
        await self._runner.setup()
        await web.TCPSite(self._runner, SITE_HOST, 0).start()
        self.url = f"http://{SITE_HOST}:{self._runner.addresses[0][1]}"
        return self

    async def _login(self, request: web.Request) -> web.Response:
        failed = request.query.get("failed") == "1"
        error = '<p role="alert" class="error">Incorrect email or password.</p>' if failed else ""
        return web.Response(
            text=page("Sign in", error + FORM, slow_head=failed), content_type="text/html"
        )

    async def _session(self, request: web.Request) -> web.Response:
        form = await request.post()
        self.sign_ins += 1
        where = "/account" if form.get("password") == PASSWORD else "/login?failed=1"
        raise web.HTTPSeeOther(where)

    async def _account(self, request: web.Request) -> web.Response:
        return web.Response(
            text=page("Your account", "<p>Signed in.</p>", slow_head=True),
            content_type="text/html",
        )

    async def _script(self, request: web.Request) -> web.Response:
        await asyncio.sleep(self.script_delay_s)
        return web.Response(text="window.loaded = true;", content_type="text/javascript")

    async def close(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
