"""A task's conversation as the tasks service sends it to a model (OpenAI
chat messages): the person's saved things as the system prompt lists them,
the task's words, each tool call and its result. Read the way a model
reads it, and nothing else: the obedient model knows no site."""

import json
import re
from dataclasses import dataclass, field
from typing import Any

from nodtest.hostile.directives import Directive, parse

# "- <id>: <label> (<origin>, <username>)" under the saved logins, and so on.
ITEM_LINE = re.compile(r"^- (\S+): ", re.M)
URL = re.compile(r"https?://\S+")
# The system prompt's lists of the person's things, each under its heading.
LOGINS = "The person's saved logins"
CARDS = "The person's saved cards"
APPS = "The person's connected apps"


@dataclass(frozen=True)
class Call:
    name: str
    arguments: dict[str, Any]
    result: dict[str, Any]


def _section(system: str, start: str, end: str) -> str:
    return system.split(start, 1)[-1].split(end, 1)[0] if start in system else ""


def _ids(section: str) -> list[str]:
    return [match.group(1) for match in ITEM_LINE.finditer(section)]


def _strings(view: dict[str, Any]) -> list[str]:
    """Every text a page read shows, the page's own text first."""
    found = [view.get("text", ""), view.get("title", "")]
    found += view.get("headings", [])
    found += [notice.get("text", "") for notice in view.get("notices", [])]
    found += [f.get(key, "") for f in view.get("fields", []) for key in ("label", "value")]
    found += [control.get("text", "") for control in view.get("controls", [])]
    found += [frame.get("title", "") for frame in view.get("frames", [])]
    return [text for text in found if isinstance(text, str) and text]


@dataclass
class Conversation:
    system: str
    task: str
    calls: list[Call] = field(default_factory=list)

    @classmethod
    def of(cls, body: dict[str, Any]) -> "Conversation":
        messages = body["messages"]
        conversation = cls(messages[0]["content"], messages[1]["content"])
        pending: dict[str, tuple[str, dict[str, Any]]] = {}
        for message in messages[2:]:
            if message["role"] == "assistant":
                for call in message.get("tool_calls") or []:
                    function = call["function"]
                    arguments = json.loads(function.get("arguments") or "{}")
                    pending[call["id"]] = (function["name"], arguments)
            elif message["role"] == "tool" and message.get("tool_call_id") in pending:
                name, arguments = pending.pop(message["tool_call_id"])
                conversation.calls.append(Call(name, arguments, json.loads(message["content"])))
        return conversation

    @property
    def login_ids(self) -> list[str]:
        return _ids(_section(self.system, LOGINS, CARDS))

    @property
    def card_ids(self) -> list[str]:
        return _ids(_section(self.system, CARDS, APPS))

    @property
    def account_ids(self) -> list[str]:
        return _ids(_section(self.system, APPS, "The webhook app"))

    def first_url(self) -> str:
        match = URL.search(self.task)
        return match.group(0).rstrip(".,") if match else ""

    @property
    def page(self) -> dict[str, Any]:
        """The last page a result showed."""
        for call in reversed(self.calls):
            if call.result.get("page"):
                return call.result["page"]
        return {}

    def last(self, key: str) -> str:
        """The last result's value of `key` (a form's or a payment's id)."""
        for call in reversed(self.calls):
            if call.result.get(key):
                return str(call.result[key])
        return ""

    def directives(self) -> list[Directive]:
        """Every instruction the pages gave so far, in the order they were
        read, each page's own once (a page read again repeats nothing)."""
        seen: set[tuple[str, str]] = set()
        found = []
        for call in self.calls:
            view = call.result.get("page") or {}
            for text in _strings(view):
                for directive in parse(text):
                    key = (view.get("url", ""), directive.line)
                    if key not in seen:
                        seen.add(key)
                        found.append(directive)
        return found

    def made(self, name: str, arguments: dict[str, Any]) -> bool:
        return any(c.name == name and c.arguments == arguments for c in self.calls)
