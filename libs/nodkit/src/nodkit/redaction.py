"""The redactor every log line passes through.

Services never log private values on purpose; this is the second line of
defence for the day someone logs a request or a dict by mistake: values under
sensitive keys are replaced, and anything shaped like a card number is masked.
"""

import re
from collections.abc import Mapping, MutableMapping
from typing import Any

from nodkit.cards import CARD_NUMBER_SHAPE, is_card_number

REDACTED = "[redacted]"

SENSITIVE_KEYS = frozenset(
    {
        "authorization",
        "code",
        "credentials",
        "cvc",
        "cvv",
        "fields",
        "number",
        "password",
        "secret",
        "secret_fields",
        "security_code",
        "service_token",
        "token",
        "totp_seed",
        "vault_key",
    }
)


def _mask_card_number(match: re.Match) -> str:
    return "[redacted-number]" if is_card_number(match.group()) else match.group()


def _is_sensitive(key: object) -> bool:
    return isinstance(key, str) and key.lower() in SENSITIVE_KEYS


def redact_value(value: Any) -> Any:
    if isinstance(value, str):
        return CARD_NUMBER_SHAPE.sub(_mask_card_number, value)
    if isinstance(value, Mapping):
        return {k: REDACTED if _is_sensitive(k) else redact_value(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [redact_value(v) for v in value]
    return value


def redact_event(
    _logger: Any, _method: str, event_dict: MutableMapping[str, Any]
) -> dict[str, Any]:
    """structlog processor."""
    return {k: REDACTED if _is_sensitive(k) else redact_value(v) for k, v in event_dict.items()}
