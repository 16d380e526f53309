"""A domain enum and its proto enum, matched by name, so no service writes
the tables by hand: ClaimState.RUNNING <-> CLAIM_STATE_RUNNING,
PaymentState.AWAITING_CONFIRMATION <-> PAYMENT_STATE_AWAITING_CONFIRMATION."""

import re
from enum import Enum
from typing import Any, Generic, TypeVar

from nodkit.errors import InvalidArgument

E = TypeVar("E", bound=Enum)


def _prefix(proto_enum_name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", proto_enum_name).upper() + "_"


class ProtoEnum(Generic[E]):
    def __init__(self, proto: Any, domain: type[E]) -> None:
        """`proto` is the generated enum (e.g. claims_pb2.ClaimState); every
        domain member must have its proto value (checked at import)."""
        prefix = _prefix(proto.DESCRIPTOR.name)
        self._to_domain: dict[int, E] = {proto.Value(prefix + m.name): m for m in domain}
        self._to_proto: dict[E, int] = {m: n for n, m in self._to_domain.items()}
        self._names = ", ".join(sorted(str(m.value) for m in domain))

    def domain(self, field: str, number: int) -> E:
        """UNSPECIFIED (0) and numbers this server does not know are bad input."""
        try:
            return self._to_domain[number]
        except KeyError:
            raise InvalidArgument(field, f"must be one of: {self._names}") from None

    def optional(self, field: str, number: int) -> E | None:
        """A filter: UNSPECIFIED (0) means none."""
        return self.domain(field, number) if number else None

    def proto(self, value: E | None) -> Any:
        """The proto number (typed as the generated enum wants it)."""
        return self._to_proto[value] if value is not None else 0
