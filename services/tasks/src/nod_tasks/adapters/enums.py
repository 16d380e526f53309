"""Another service's enum value as this service's, matched by name; a value
this service doesn't know becomes the domain's UNKNOWN (never, say, taken
for SUBMITTED)."""

import re
from enum import Enum
from typing import Any, TypeVar

E = TypeVar("E", bound=Enum)


def _prefix(proto_enum: Any) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", proto_enum.DESCRIPTOR.name).upper() + "_"


def to_domain(proto_enum: Any, domain: type[E], number: int, unknown: E) -> E:
    try:
        name = proto_enum.Name(number).removeprefix(_prefix(proto_enum))
    except ValueError:
        return unknown
    return domain.__members__.get(name, unknown)


def to_proto(proto_enum: Any, value: Enum) -> Any:
    return proto_enum.Value(_prefix(proto_enum) + value.name)
