"""The redactor every log line passes through.

Services never log private values on purpose; this is the second line of
defence for the day someone logs a request or a dict by mistake: values under
sensitive keys are replaced, and anything shaped like a card number is masked.
"""

import re
from collections.abc import Mapping, MutableMapping
from typing import Any

from nodkit.cards import digits_of, luhn_valid

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

# 13-19 digits, optionally grouped by spaces or dashes, standing alone (not
# part of a hex id or a UUID) and passing the Luhn check: a card number.
_CARD_NUMBER = re.compile(r"(?<![0-9A-Za-z-])(?:\d[ -]?){12,18}\d(?![0-9A-Za-z-])")


def _mask_card_number(match: re.Match) -> str:
    return "[redacted-number]" if luhn_valid(digits_of(match.group())) else match.group()


def _is_sensitive(key: object) -> bool:
    return isinstance(key, str) and key.lower() in SENSITIVE_KEYS


def redact_value(value: Any) -> Any:
    if isinstance(value, str):
        return _CARD_NUMBER.sub(_mask_card_number, value)
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
