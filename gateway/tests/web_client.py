"""A person's HTTP client without a browser: signs in through the sign-in
form (its binding cookie and field) and reads server-sent events. Every
page and event it receives is kept for the session's private-value scan
(nodtest.observed)."""

import contextlib
import re
from collections.abc import AsyncIterator

import httpx

from nodtest import canaries, observed


@contextlib.asynccontextmanager
async def signed_in_client(
    base_url: str, name: str, password: str
) -> AsyncIterator[httpx.AsyncClient]:
    hooks = {"response": [keep_page]}
    async with httpx.AsyncClient(base_url=base_url, timeout=30, event_hooks=hooks) as client:
        form = await client.get("/signin")
        binding = re.search(r'name="binding" value="([^"]+)"', form.text).group(1)  # type: ignore[union-attr]
        signed = await client.post(
            "/signin",
            data={
                "binding": binding,
                "name": name,
                "password": canaries.register(password, "sign-in password"),
                "next": "/tasks",
            },
        )
        assert signed.status_code == 303, signed.text
        yield client


async def keep_page(response: httpx.Response) -> None:
    """An event stream is kept frame by frame, as read_events reads it."""
    if response.headers.get("content-type", "").startswith("text/event-stream"):
        return
    await response.aread()
    observed.keep(f"gateway page: {response.request.url.path}", response.text)


def csrf_of(html: str) -> str:
    return re.search(r'name="csrf" value="([^"]+)"', html).group(1)  # type: ignore[union-attr]


async def read_events(response: httpx.Response, until: int = 0, until_id: str = ""):
    """(event, id, data) frames of an open stream, until `until` frames, or
    until the first frame with the id `until_id`."""
    frames: list[tuple[str, str, str]] = []
    event, ident, data = "message", "", []
    async for raw in response.aiter_lines():
        if raw == "":
            if data or ident:
                frames.append((event, ident, "\n".join(data)))
                observed.keep(f"gateway event: {response.request.url.path}", frames[-1][2])
                if (until and len(frames) >= until) or (until_id and ident == until_id):
                    return frames
            event, ident, data = "message", "", []
        elif raw.startswith("event:"):
            event = raw[6:].strip()
        elif raw.startswith("id:"):
            ident = raw[3:].strip()
        elif raw.startswith("data:"):
            data.append(raw[5:].removeprefix(" "))
    return frames
