"""What a model provider is asked and answers, whichever provider it is
(the OpenAI-compatible client or the scripted planner)."""

import json
from dataclasses import dataclass, field
from typing import Any, Protocol


@dataclass(frozen=True)
class SavedLogin:
    id: str
    label: str
    origin: str
    username: str  # masked
    # It keeps a TOTP seed: enter_saved_login can place a one-time code from it.
    makes_codes: bool = False


@dataclass(frozen=True)
class SavedCard:
    id: str
    label: str
    number: str  # masked: •••• 4242
    expiry: str


@dataclass(frozen=True)
class AppAccount:
    id: str
    app: str
    label: str


@dataclass(frozen=True)
class TaskContext:
    """What the model may know of the person's things: labels and masked
    values only, never a private value."""

    task_id: str
    text: str
    logins: list[SavedLogin] = field(default_factory=list)
    cards: list[SavedCard] = field(default_factory=list)
    accounts: list[AppAccount] = field(default_factory=list)


@dataclass(frozen=True)
class ToolCall:
    id: str
    name: str
    # Parsed from the model's JSON; None when it wasn't a JSON object.
    arguments: dict[str, Any] | None
    raw_arguments: str = ""


@dataclass(frozen=True)
class ModelReply:
    text: str
    tool_calls: list[ToolCall]


@dataclass(frozen=True)
class Message:
    """One OpenAI chat message, and its JSON, encoded once: a task's
    conversation only grows, so each request re-sends what was encoded."""

    body: dict[str, Any]
    encoded: str

    @classmethod
    def of(cls, body: dict[str, Any]) -> "Message":
        return cls(body, json.dumps(body, sort_keys=True, ensure_ascii=False))


@dataclass(frozen=True)
class ModelRequest:
    # OpenAI chat messages (system prompt first), masked.
    messages: tuple[Message, ...]
    tools: list[dict[str, Any]]
    context: TaskContext


class ModelProvider(Protocol):
    name: str

    async def complete(self, request: ModelRequest) -> ModelReply:
        """One attempt. Raises retry.ModelFailure when there is no usable answer."""
        ...
