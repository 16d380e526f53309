"""A local stand-in for an app that takes webhooks: it records every request
it receives (even the ones it then drops or holds) and answers the way it is
told to, so tests and `make run` can see exactly what nod sent.

    python -m nod_demo.webhook_app --port 0   # first line: listening http://127.0.0.2:PORT
"""

import argparse
import asyncio
import html
import json
import time

from aiohttp import web

MODES = frozenset({"ok", "reject", "error", "hang", "drop", "slow"})


class WebhookState:
    """What the app received, and how it answers next."""

    def __init__(self) -> None:
        self.received: list[dict] = []
        self.mode = "ok"
        self.slow_s = 1.0
        self.message = "rejected by the demo app"
        self.held = 0
        self.released = asyncio.Event()
        self._arrived = asyncio.Event()

    def record(self, *, method, path, idempotency_key, has_authorization, raw) -> dict:
        try:
            body = json.loads(raw)
        except ValueError:
            body = None
        entry = {
            "n": len(self.received) + 1,
            "method": method,
            "path": path,
            "idempotency_key": idempotency_key,
            "has_authorization": has_authorization,
            "body": body,
            "raw": raw,
            "at": time.time(),
        }
        self.received.append(entry)
        arrived, self._arrived = self._arrived, asyncio.Event()
        arrived.set()
        return entry

    def set_mode(self, mode: str, *, seconds=None, message=None) -> None:
        self.mode = mode
        if seconds is not None:
            self.slow_s = float(seconds)
        if message:
            self.message = message

    def release(self) -> int:
        """Answers every held request; later ones in hang mode are held again."""
        held, self.released = self.released, asyncio.Event()
        held.set()
        return self.held

    async def wait_for_count(self, count: int, timeout_s: float = 10.0) -> list[dict]:
        """Until at least `count` requests arrived (a deadline, not a sleep)."""
        async with asyncio.timeout(timeout_s):
            while len(self.received) < count:
                await self._arrived.wait()
        return self.received


STATE = web.AppKey("state", WebhookState)


async def receive(request: web.Request) -> web.StreamResponse:
    state = request.app[STATE]
    raw = (await request.read()).decode(errors="replace")
    entry = state.record(
        method=request.method,
        path=request.path,
        idempotency_key=request.headers.get("Idempotency-Key"),
        has_authorization="Authorization" in request.headers,
        raw=raw,
    )
    mode = state.mode
    if mode == "drop":
        # The body was read; the caller never hears back.
        request.transport.close()
        return web.Response(status=500)
    if mode == "hang":
        state.held += 1
        try:
            await state.released.wait()
        finally:
            state.held -= 1
    if mode == "slow":
        await asyncio.sleep(state.slow_s)
    if mode == "reject":
        return web.json_response({"ok": False, "error": state.message}, status=422)
    if mode == "error":
        return web.json_response({"ok": False, "error": "internal error"}, status=500)
    return web.json_response({"ok": True, "id": entry["n"]})


async def set_mode(request: web.Request) -> web.Response:
    state = request.app[STATE]
    wanted = await request.json()
    if wanted.get("mode") not in MODES:
        return web.json_response({"error": f"mode must be one of {sorted(MODES)}"}, status=400)
    state.set_mode(wanted["mode"], seconds=wanted.get("seconds"), message=wanted.get("message"))
    return web.json_response({"mode": state.mode})


async def release(request: web.Request) -> web.Response:
    return web.json_response({"released": request.app[STATE].release()})


async def received(request: web.Request) -> web.Response:
    return web.json_response(request.app[STATE].received)


async def index(request: web.Request) -> web.Response:
    rows = "".join(
        f"<tr><td>{e['n']}</td><td>{html.escape(e['path'])}</td>"
        f"<td>{html.escape(e['idempotency_key'] or '')}</td>"
        f"<td>{'yes' if e['has_authorization'] else 'no'}</td>"
        f"<td><code>{html.escape(e['raw'])}</code></td>"
        f"<td>{time.strftime('%H:%M:%S', time.localtime(e['at']))}</td></tr>"
        for e in request.app[STATE].received
    )
    page = (
        "<!doctype html><title>demo app</title><h1>Demo app: webhooks received</h1>"
        f"<p>mode: {html.escape(request.app[STATE].mode)}</p><table border=1>"
        "<tr><th>#</th><th>path</th><th>Idempotency-Key</th><th>auth</th><th>body</th>"
        f"<th>at</th></tr>{rows}</table>"
    )
    return web.Response(text=page, content_type="text/html")


def make_app(state: WebhookState | None = None) -> web.Application:
    app = web.Application()
    app[STATE] = state or WebhookState()
    app.router.add_post("/hooks/{name}", receive)
    app.router.add_post("/_control/mode", set_mode)
    app.router.add_post("/_control/release", release)
    app.router.add_get("/_control/received", received)
    app.router.add_get("/", index)

    async def release_held(app: web.Application) -> None:
        app[STATE].release()

    app.on_shutdown.append(release_held)
    return app


# A site the browser may show as well: on 127.0.0.2 like the shop, not on the
# services' 127.0.0.1.
DEFAULT_HOST = "127.0.0.2"


async def start_webhook_app(port: int = 0, host: str = DEFAULT_HOST):
    """(runner, base url, state); stop with `await runner.cleanup()`."""
    state = WebhookState()
    runner = web.AppRunner(make_app(state), shutdown_timeout=1.0, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, host, port)
    await site.start()
    bound = runner.addresses[0][1]
    return runner, f"http://{host}:{bound}", state


async def _serve(port: int, host: str) -> None:
    runner, url, _state = await start_webhook_app(port, host)
    print(f"listening {url}", flush=True)
    try:
        await asyncio.Event().wait()
    finally:
        await runner.cleanup()


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m nod_demo.webhook_app")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--host", default=DEFAULT_HOST)
    args = parser.parse_args()
    try:
        asyncio.run(_serve(args.port, args.host))
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
