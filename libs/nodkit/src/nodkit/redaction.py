"""The redactor every log line passes through.

Services never log private values on purpose; this is the second line of
defence for the day someone logs a request or a dict by mistake: values under
sensitive keys are replaced, and card numbers (nodkit.cards) are masked.
"""

from collections.abc import Mapping, MutableMapping
from typing import Any

from nodkit.cards import mask_card_numbers

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


def _is_sensitive(key: object) -> bool:
    return isinstance(key, str) and key.lower() in SENSITIVE_KEYS


def redact_value(value: Any) -> Any:
    if isinstance(value, str):
        return mask_card_numbers(value)
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
