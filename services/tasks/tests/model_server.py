"""A local HTTP server standing in for an OpenAI-compatible model provider:
it speaks /chat/completions, answers as each test scripts it, and keeps
every request it receives (so a test can count them and read them, and the
session's private-value scan reads them too: nodtest.observed)."""

import asyncio
import json
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, replace
from typing import Any

from aiohttp import web

from nod_tasks.adapters.models.scripted import ScriptedPlanner
from nod_tasks.domain.model import Message, ModelRequest, TaskContext
from nodtest import observed

# An answer: (status, headers, body as JSON), or a coroutine that makes one.
Answer = tuple[int, dict[str, str], dict[str, Any]]


def tool_call(name: str, arguments: dict[str, Any]) -> Answer:
    call = {
        "id": f"call_{uuid.uuid4().hex[:8]}",
        "type": "function",
        "function": {"name": name, "arguments": json.dumps(arguments)},
    }
    return 200, {}, {"choices": [{"message": {"role": "assistant", "tool_calls": [call]}}]}


def text(content: str) -> Answer:
    return 200, {}, {"choices": [{"message": {"role": "assistant", "content": content}}]}


def status(code: int, headers: dict[str, str] | None = None) -> Answer:
    return code, headers or {}, {"error": {"message": f"stand-in error {code}"}}


@dataclass
class ModelServer:
    url: str = ""
    requests: list[dict[str, Any]] = field(default_factory=list)
    arrived_at: list[float] = field(default_factory=list)
    # Answered in order; once empty, `otherwise` answers.
    script: list[Answer | Callable[[], Awaitable[Answer]]] = field(default_factory=list)
    otherwise: Callable[[dict[str, Any]], Awaitable[Answer]] | None = None
    _runner: web.AppRunner | None = None

    async def start(self) -> "ModelServer":
        app = web.Application()
        app.router.add_post("/v1/chat/completions", self._complete)
        self._runner = web.AppRunner(app, access_log=None, shutdown_timeout=1.0)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        self.url = f"http://127.0.0.1:{self._runner.addresses[0][1]}/v1"
        return self

    def plan_as_scripted(self, context: TaskContext) -> None:
        """Answer the way the scripted planner would, over the real protocol."""
        planner = ScriptedPlanner()

        async def answer(body: dict[str, Any]) -> Answer:
            words = next(m["content"] for m in body["messages"] if m["role"] == "user")
            messages = tuple(Message.of(m) for m in body["messages"])
            request = ModelRequest(messages, body.get("tools", []), replace(context, text=words))
            reply = await planner.complete(request)
            if not reply.tool_calls:
                return text(reply.text)
            call = reply.tool_calls[0]
            return tool_call(call.name, call.arguments or {})

        self.otherwise = answer

    async def _complete(self, request: web.Request) -> web.Response:
        body = await request.json()
        self.requests.append(body)
        observed.keep("model request: stand-in", json.dumps(body))
        self.arrived_at.append(asyncio.get_running_loop().time())
        if self.script:
            step = self.script.pop(0)
            answer = await step() if callable(step) else step
        elif self.otherwise is not None:
            answer = await self.otherwise(body)
        else:
            answer = text("Nothing more to do.")
        code, headers, payload = answer
        return web.json_response(payload, status=code, headers=headers)

    def everything_sent(self) -> str:
        return json.dumps(self.requests)

    async def close(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
