"""What every connector offers, and the checks they share."""

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import ClassVar, Protocol

from nod_approvals.domain.approvals import Outcome
from nodkit.cards import mask_card_numbers
from nodkit.errors import InvalidArgument

MAX_APP_MESSAGE = 300

# Checks an action's parameters: raises InvalidArgument naming
# `parameters.<field>`, returns them normalised.
ActionCheck = Callable[[dict], dict]


@dataclass(frozen=True)
class Send:
    execution_id: str
    action: str
    settings: dict[str, str]
    credentials: dict[str, str] = field(repr=False)
    # The stored parameter bytes, sent as they are.
    parameters_json: str


class Connector(Protocol):
    app: ClassVar[str]
    actions: ClassVar[Mapping[str, ActionCheck]]
    # The whole send ends within it (send() keeps to it itself: only the
    # connector knows whether a timeout came before or after anything left).
    timeout_s: float

    def check_settings(self, settings: dict[str, str]) -> dict[str, str]: ...

    def check_credentials(self, credentials: dict[str, str]) -> dict[str, str]: ...

    # Refuses (naming the setting) an app nod must not reach (nodkit.networks).
    async def check_reachable(self, settings: dict[str, str]) -> None: ...

    async def send(self, request: Send) -> Outcome: ...


def app_message(text: str, credentials: dict[str, str]) -> str:
    """An app's answer as shown to the person and stored: one line, trimmed,
    never a credential, even if the app echoed one back, and no card number
    (masked once it is one line: a number broken over lines is one there)."""
    for value in credentials.values():
        if value:
            text = text.replace(value, "[redacted]")
    line = mask_card_numbers(" ".join(text.split()))
    return line if len(line) <= MAX_APP_MESSAGE else line[: MAX_APP_MESSAGE - 1] + "…"


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
