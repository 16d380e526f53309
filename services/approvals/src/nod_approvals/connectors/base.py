"""What every connector offers, and what one send can end as."""

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Protocol

from nod_approvals.domain import ExecutionState
from nodkit.errors import InvalidArgument

MAX_APP_MESSAGE = 300


@dataclass(frozen=True)
class Outcome:
    state: ExecutionState
    result: str = ""
    reason: str = ""


@dataclass(frozen=True)
class Send:
    execution_id: str
    action: str
    settings: dict[str, str]
    credentials: dict[str, str] = field(repr=False)
    # The stored parameter bytes, sent as they are.
    parameters_json: str


class Connector(Protocol):
    app: str
    # The whole send must end within it; no answer by then is UNCERTAIN.
    timeout_s: float
    # Action name -> check of its parameters (raises InvalidArgument naming
    # `parameters.<field>`, returns them normalised).
    actions: Mapping[str, Callable[[dict], dict]]

    def check_settings(self, settings: dict[str, str]) -> dict[str, str]: ...

    def check_credentials(self, credentials: dict[str, str]) -> dict[str, str]: ...

    async def send(self, request: Send) -> Outcome: ...


def app_message(text: str, credentials: dict[str, str]) -> str:
    """An app's answer as shown to the person: one line, trimmed, and never a
    credential, even if the app echoed one back."""
    for value in credentials.values():
        if value:
            text = text.replace(value, "[redacted]")
    line = " ".join(text.split())
    return line if len(line) <= MAX_APP_MESSAGE else line[: MAX_APP_MESSAGE - 1] + "…"


def uncertain(reason: str) -> Outcome:
    return Outcome(
        ExecutionState.UNCERTAIN, reason=f"{reason}; it may have reached the app: check the app"
    )


def check_keys(
    values: dict, where: str, *, required: frozenset[str], optional: frozenset[str] = frozenset()
) -> None:
    """Refuses unknown and missing keys, naming the first one."""
    unknown = sorted(values.keys() - required - optional)
    if unknown:
        allowed = ", ".join(sorted(required | optional))
        raise InvalidArgument(f"{where}.{unknown[0]}", f"is not known here (allowed: {allowed})")
    missing = sorted(required - values.keys())
    if missing:
        raise InvalidArgument(f"{where}.{missing[0]}", "is required")


def check_text(field: str, value, *, max_length: int, single_line: bool = True) -> str:
    if not isinstance(value, str) or not value.strip():
        raise InvalidArgument(field, "must be a non-empty string")
    if len(value) > max_length or "\x00" in value:
        raise InvalidArgument(field, f"must be at most {max_length} characters, without NUL")
    if single_line and ("\r" in value or "\n" in value):
        raise InvalidArgument(field, "must be one line")
    return value
