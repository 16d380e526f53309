"""A log of what a test did to nod and what the world saw, and the checks of
the promise against it ("one use, one result", DESIGN.md G2, G3, G5, G7, G11).

A model test records each call it makes as an `Operation` (its id: the
operation, request or approval id the call is named by; several calls share
an id when one is a resend), each side effect it observes in the outside
world or in the records (a grant carrying a value, a webhook the demo app
received, a payment entered) as a `SideEffect` of an id, each state it reads
back as a `RecordSeen`, and each Stop. `violations()` then says what broke:

- more than one side effect for one operation id (something ran twice);
- a record seen UNCERTAIN and later in another state (G3, G4: nothing
  uncertain is ever resolved or retried by nod on its own);
- input acted on after Stop: a side effect of an operation whose call came
  after a Stop of its scope (G11).
"""

from collections import defaultdict
from dataclasses import dataclass, field
from enum import StrEnum


class Outcome(StrEnum):
    OK = "ok"
    FAILED = "failed"
    # No definite answer (UNAVAILABLE, DEADLINE_EXCEEDED, a lost reply).
    UNKNOWN = "unknown"


class ViolationKind(StrEnum):
    SIDE_EFFECT_REPEATED = "side_effect_repeated"
    UNCERTAIN_CHANGED = "uncertain_changed"
    ACTED_AFTER_STOP = "acted_after_stop"


UNCERTAIN = "uncertain"


@dataclass(frozen=True)
class Operation:
    id: str
    kind: str
    request: dict[str, str]
    outcome: Outcome
    # Whose input it is (a task, a person): a Stop of this scope ends it.
    scope: str = ""
    # Position in the history, set by History.
    at: int = -1


@dataclass(frozen=True)
class SideEffect:
    operation_id: str
    what: str
    at: int = -1


@dataclass(frozen=True)
class RecordSeen:
    record_id: str
    state: str
    at: int = -1


@dataclass(frozen=True)
class Stop:
    scope: str
    at: int = -1


@dataclass(frozen=True)
class Violation:
    kind: ViolationKind
    subject: str
    detail: str


@dataclass
class History:
    operations: list[Operation] = field(default_factory=list)
    effects: list[SideEffect] = field(default_factory=list)
    records: list[RecordSeen] = field(default_factory=list)
    stops: list[Stop] = field(default_factory=list)
    _clock: int = 0

    def _tick(self) -> int:
        self._clock += 1
        return self._clock

    def operation(
        self,
        id: str,
        kind: str,
        outcome: Outcome,
        *,
        request: dict[str, str] | None = None,
        scope: str = "",
    ) -> Operation:
        op = Operation(id, kind, dict(request or {}), outcome, scope, self._tick())
        self.operations.append(op)
        return op

    def side_effect(self, operation_id: str, what: str) -> None:
        self.effects.append(SideEffect(operation_id, what, self._tick()))

    def seen(self, record_id: str, state: str) -> None:
        self.records.append(RecordSeen(record_id, state, self._tick()))

    def stop(self, scope: str) -> None:
        self.stops.append(Stop(scope, self._tick()))

    def violations(self) -> list[Violation]:
        return [
            *self._repeated_effects(),
            *self._changed_uncertain(),
            *self._acted_after_stop(),
        ]

    def _repeated_effects(self) -> list[Violation]:
        by_id: dict[str, list[SideEffect]] = defaultdict(list)
        for effect in self.effects:
            by_id[effect.operation_id].append(effect)
        return [
            Violation(
                ViolationKind.SIDE_EFFECT_REPEATED,
                operation_id,
                f"{len(effects)} side effects: {', '.join(e.what for e in effects)}",
            )
            for operation_id, effects in by_id.items()
            if len(effects) > 1
        ]

    def _changed_uncertain(self) -> list[Violation]:
        uncertain_since: dict[str, int] = {}
        found: list[Violation] = []
        for seen in sorted(self.records, key=lambda r: r.at):
            if seen.state == UNCERTAIN:
                uncertain_since.setdefault(seen.record_id, seen.at)
            elif seen.record_id in uncertain_since:
                found.append(
                    Violation(
                        ViolationKind.UNCERTAIN_CHANGED,
                        seen.record_id,
                        f"uncertain, then {seen.state}",
                    )
                )
        return found

    def _acted_after_stop(self) -> list[Violation]:
        first_stop: dict[str, int] = {}
        for stop in self.stops:
            first_stop.setdefault(stop.scope, stop.at)
        # An id's first call decides when its input arrived (a resend of
        # input given before Stop is not new input).
        first_call: dict[str, Operation] = {}
        for op in self.operations:
            first_call.setdefault(op.id, op)
        found: list[Violation] = []
        for effect in self.effects:
            first = first_call.get(effect.operation_id)
            if first is None or first.scope not in first_stop:
                continue
            if first.at > first_stop[first.scope]:
                found.append(
                    Violation(
                        ViolationKind.ACTED_AFTER_STOP,
                        effect.operation_id,
                        f"{first.kind} arrived after Stop of {first.scope}, then {effect.what}",
                    )
                )
        return found

    def assert_kept(self) -> None:
        found = self.violations()
        if found:
            lines = "\n".join(f"{v.kind.value} {v.subject}: {v.detail}" for v in found)
            raise AssertionError(f"the history breaks the promise:\n{lines}")
