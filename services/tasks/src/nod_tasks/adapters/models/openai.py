"""An OpenAI-compatible chat-completions provider with tool calling, on
httpx: one POST per attempt, no retries of its own (httpx makes none; G10's
retries are app/model_requests.py's, and only there). Not streamed, so no
answer is ever half-received."""

import email.utils
import json
import logging
import time
from typing import Any

import httpx
from pydantic import SecretStr

from nod_tasks.domain.model import ModelReply, ModelRequest, ToolCall
from nod_tasks.domain.retry import ModelFailure

MAX_DETAIL = 300
# httpx logs every request's URL at INFO; a provider's URL may carry a key.
logging.getLogger("httpx").setLevel(logging.WARNING)


class OpenAICompatible:
    name = "openai-compatible"

    def __init__(
        self, base_url: str, api_key: SecretStr | None, model: str, *, timeout_s: float
    ) -> None:
        headers = {"Authorization": f"Bearer {api_key.get_secret_value()}"} if api_key else {}
        self._model = model
        self._tools: tuple[list[dict[str, Any]], str] | None = None
        self._client = httpx.AsyncClient(
            base_url=base_url.rstrip("/"),
            headers=headers,
            timeout=httpx.Timeout(timeout_s, connect=min(timeout_s, 5.0)),
            trust_env=False,
        )

    async def complete(self, request: ModelRequest) -> ModelReply:
        try:
            response = await self._client.post(
                "/chat/completions",
                content=self._body(request),
                headers={"content-type": "application/json"},
            )
        except (httpx.ConnectError, httpx.ConnectTimeout) as error:
            why = f"could not connect ({type(error).__name__})"
            raise ModelFailure(None, "connection", why) from None
        except httpx.ReadTimeout:
            raise ModelFailure(None, "read_timeout", "no answer in time") from None
        except httpx.TransportError as error:
            why = f"the connection broke ({type(error).__name__})"
            raise ModelFailure(None, "connection", why) from None
        if response.status_code != 200:
            raise ModelFailure(
                response.status_code,
                "http",
                f"HTTP {response.status_code}: {response.text[:MAX_DETAIL]}",
                retry_after_s=retry_after(response.headers.get("retry-after")),
            )
        return parse_reply(response)

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
        await self._client.aclose()


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


def parse_reply(response: httpx.Response) -> ModelReply:
    try:
        message = response.json()["choices"][0]["message"]
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
