"""The saved action: what the person sees is byte-for-byte what runs.

A proposal is frozen as canonical JSON (sorted keys, no spaces) of
{account_id, action, app, parameters} plus its SHA-256. `parameters` sorts
last, so the stored parameter bytes are the tail of that text: a webhook
receives exactly them, cut out of the stored text, never re-encoded.
"""

import hashlib
import json
import math
from dataclasses import dataclass

from nodkit.errors import InvalidArgument
from nodkit.validation import no_card_number

MAX_PARAMETERS_BYTES = 64 * 1024
_PARAMETERS_KEY = ',"parameters":'


def canonical_json(value) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def digest_of(saved_action: str) -> str:
    return hashlib.sha256(saved_action.encode()).hexdigest()


def normalise(value, path: str = "parameters"):
    """protobuf Structs carry every number as a double: whole numbers become
    ints again (1, not 1.0), and NaN or infinity is refused as bad input.
    No key or value holds a card number (G8): the saved action is shown to
    the person, stored and sent as it is."""
    if isinstance(value, dict):
        return {
            no_card_number(path, key): normalise(item, f"{path}.{key}")
            for key, item in value.items()
        }
    if isinstance(value, list):
        return [normalise(item, f"{path}[{i}]") for i, item in enumerate(value)]
    if isinstance(value, str):
        return no_card_number(path, value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise InvalidArgument(path, "must be a finite number")
        if value.is_integer() and abs(value) < 2**53:
            value = int(value)
    if isinstance(value, int | float):
        # As the saved text will write it: a fraction's digits can read as a
        # card number too (4242.424242424242: two groups joined by a dot).
        no_card_number(path, canonical_json(value))
    return value


def parameters_json(parameters: dict) -> str:
    text = canonical_json(parameters)
    if len(text.encode()) > MAX_PARAMETERS_BYTES:
        raise InvalidArgument("parameters", f"must be at most {MAX_PARAMETERS_BYTES} bytes as JSON")
    return text


@dataclass(frozen=True)
class SavedAction:
    text: str
    digest: str

    @classmethod
    def freeze(cls, *, app: str, account_id: str, action: str, parameters: dict) -> "SavedAction":
        text = canonical_json(
            {"account_id": account_id, "action": action, "app": app, "parameters": parameters}
        )
        return cls(text, digest_of(text))

    def body(self) -> str:
        # The keys before it are an id and two fixed names, so the first match is the key.
        start = self.text.index(_PARAMETERS_KEY) + len(_PARAMETERS_KEY)
        return self.text[start:-1]

    def is_intact(self) -> bool:
        return digest_of(self.text) == self.digest
