"""An OpenAI-compatible chat-completions provider with tool calling: one POST
per attempt, no retries of its own (aiohttp makes none; G10's retries are
app/model_requests.py's, and only there). Not streamed, so no answer is
ever half-received.

On aiohttp rather than httpx: on a loopback provider with a long task's
conversation (90 KB), httpx spent 1.7 ms of the step's CPU per request and
aiohttp 0.2 ms, on the same machine in one run; the request is on every step.
"""

import email.utils
import json
import time
from typing import Any

import aiohttp
from pydantic import SecretStr

from nod_tasks.domain.model import ModelReply, ModelRequest, ToolCall
from nod_tasks.domain.retry import ModelFailure

MAX_DETAIL = 300
JSON = {"content-type": "application/json"}


class OpenAICompatible:
    name = "openai-compatible"

    def __init__(
        self, base_url: str, api_key: SecretStr | None, model: str, *, timeout_s: float
    ) -> None:
        self._url = base_url.rstrip("/") + "/chat/completions"
        self._headers = {**JSON}
        if api_key:
            self._headers["authorization"] = f"Bearer {api_key.get_secret_value()}"
        self._model = model
        self._tools: tuple[list[dict[str, Any]], str] | None = None
        # Each wait for the answer is bounded by timeout_s (a read timeout is
        # temporary, G10); connecting by 5 s at most.
        self._timeout = aiohttp.ClientTimeout(
            total=None, connect=min(timeout_s, 5.0), sock_read=timeout_s
        )
        self._session: aiohttp.ClientSession | None = None

    def _client(self) -> aiohttp.ClientSession:
        # Made on first use: a session belongs to the event loop it was made in.
        if self._session is None:
            self._session = aiohttp.ClientSession(timeout=self._timeout, trust_env=False)
        return self._session

    async def complete(self, request: ModelRequest) -> ModelReply:
        try:
            async with self._client().post(
                self._url, data=self._body(request), headers=self._headers
            ) as response:
                text = (await response.read()).decode("utf-8", "replace")
                if response.status != 200:
                    raise ModelFailure(
                        response.status,
                        "http",
                        f"HTTP {response.status}: {text[:MAX_DETAIL]}",
                        retry_after_s=retry_after(response.headers.get("retry-after")),
                    )
        except aiohttp.SocketTimeoutError:
            raise ModelFailure(None, "read_timeout", "no answer in time") from None
        except (aiohttp.ClientConnectorError, aiohttp.ConnectionTimeoutError) as error:
            why = f"could not connect ({type(error).__name__})"
            raise ModelFailure(None, "connection", why) from None
        except (aiohttp.ClientError, TimeoutError) as error:
            why = f"the connection broke ({type(error).__name__})"
            raise ModelFailure(None, "connection", why) from None
        return parse_reply(text)

    def _body(self, request: ModelRequest) -> bytes:
        """The request's JSON, made from each message's JSON as it was
        encoded once: a long task's conversation isn't encoded again for
        every step."""
        if self._tools is None or self._tools[0] is not request.tools:
            self._tools = (request.tools, json.dumps(request.tools))
        settings = {
            "model": self._model,
            "tool_choice": "auto",
            # One tool call at a time: each is a step, recorded before it runs.
            "parallel_tool_calls": False,
        }
        messages = ",".join(message.encoded for message in request.messages)
        head = json.dumps(settings)[:-1]
        return f'{head},"messages":[{messages}],"tools":{self._tools[1]}}}'.encode()

    async def close(self) -> None:
        if self._session is not None:
            await self._session.close()


def retry_after(header: str | None) -> float | None:
    """Retry-After as seconds (a number, or an HTTP date)."""
    if not header:
        return None
    try:
        return max(float(header), 0.0)
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(header)
    except (TypeError, ValueError):
        return None
    return max(when.timestamp() - time.time(), 0.0)


def parse_reply(text: str) -> ModelReply:
    try:
        message = json.loads(text)["choices"][0]["message"]
        calls = [_tool_call(call) for call in message.get("tool_calls") or []]
        return ModelReply(text=message.get("content") or "", tool_calls=calls)
    except (ValueError, KeyError, IndexError, TypeError):
        raise ModelFailure(200, "bad_answer", "the answer was not a chat completion") from None


def _tool_call(call: dict[str, Any]) -> ToolCall:
    raw = call["function"].get("arguments") or "{}"
    try:
        arguments = json.loads(raw)
    except ValueError:
        arguments = None
    return ToolCall(
        id=str(call.get("id") or "call"),
        name=str(call["function"]["name"]),
        arguments=arguments if isinstance(arguments, dict) else None,
        raw_arguments=raw if isinstance(raw, str) else json.dumps(raw),
    )
