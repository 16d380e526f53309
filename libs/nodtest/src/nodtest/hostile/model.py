"""The obedient model stand-in: a real local server speaking the
OpenAI-compatible /chat/completions protocol, which answers every request
with the tool call nodtest.hostile.obedient decides. It keeps every request
it received, for the counting (and for the session's own scan)."""

import json
import uuid
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from nodtest import observed
from nodtest.hostile.conversation import Conversation
from nodtest.hostile.obedient import next_call


def tool_call(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    call = {
        "id": f"call_{uuid.uuid4().hex[:12]}",
        "type": "function",
        "function": {"name": name, "arguments": json.dumps(arguments)},
    }
    return {"choices": [{"message": {"role": "assistant", "content": None, "tool_calls": [call]}}]}


@dataclass
class ObedientModel:
    host: str = "127.0.0.1"
    url: str = ""
    # Every request body as it arrived (the text the tasks service sent).
    requests: list[str] = field(default_factory=list)
    _runner: web.AppRunner | None = None

    async def start(self) -> "ObedientModel":
        app = web.Application(client_max_size=32 * 1024 * 1024)
        app.router.add_post("/v1/chat/completions", self._complete)
        self._runner = web.AppRunner(app, access_log=None, shutdown_timeout=1.0)
        await self._runner.setup()
        await web.TCPSite(self._runner, self.host, 0).start()
        self.url = f"http://{self.host}:{self._runner.addresses[0][1]}/v1"
        return self

    async def _complete(self, request: web.Request) -> web.Response:
        text = await request.text()
        self.requests.append(text)
        observed.keep("model request: obedient stand-in", text)
        try:
            name, arguments = next_call(Conversation.of(json.loads(text)))
        except (ValueError, KeyError, IndexError, TypeError) as error:
            # A conversation it can't read is ended, never guessed at.
            name, arguments = (
                "finish",
                {"message": f"I could not read the task ({type(error).__name__})."},
            )
        return web.json_response(tool_call(name, arguments))

    async def close(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
