"""Fault points: named places in a flow where a test or the soak makes nod
fail the way the world does (FoundationDB's BUGGIFY, sized for us).

    await faults.point("claims.after_commit")

costs one dict lookup while nothing is armed (always, in production). A
point is armed by the shared setting NOD_FAULTS, a comma-separated list of
`name=action[:seconds][#hit]`:

    NOD_FAULTS=claims.after_commit=kill,browser.fields_filled=delay:0.5#2

- kill: SIGKILL this process, as a crash or an OOM kill would: no cleanup,
  no reply, nothing flushed but the line saying so.
- raise: FaultInjected, an error the code did not expect.
- delay:S: wait S seconds (a slow disk, a slow peer), then go on.
- hang: wait until cancelled (a stuck call: only a deadline ends it).

A fault fires from the point's hit-th pass on (default the first), so a test
can kill at a flow's second model request as easily as at its first. Every
name must be one of nodkit.fault_points.POINTS: a misspelt point in the
setting is refused at start, and one in the code fails `make lint`
(scripts/fault_points.py).
"""

import asyncio
import os
import signal
import sys
from dataclasses import dataclass
from enum import StrEnum

from nodkit.fault_points import POINTS
from nodkit.logging import get_logger

log = get_logger("nodkit.faults")


class FaultAction(StrEnum):
    KILL = "kill"
    RAISE = "raise"
    DELAY = "delay"
    HANG = "hang"


class FaultInjected(RuntimeError):
    """Raised at a point armed with `raise`."""


@dataclass(frozen=True)
class Fault:
    action: FaultAction
    seconds: float = 0.0
    hit: int = 1


_armed: dict[str, Fault] = {}
_passes: dict[str, int] = {}


def parse(spec: str) -> dict[str, Fault]:
    """NOD_FAULTS's value as faults by point; ValueError naming what's wrong."""
    faults: dict[str, Fault] = {}
    for entry in filter(None, (part.strip() for part in spec.split(","))):
        name, equals, rest = entry.partition("=")
        if not equals:
            raise ValueError(f"NOD_FAULTS: {entry!r} is not name=action")
        if name not in POINTS:
            raise ValueError(f"NOD_FAULTS: no fault point is named {name!r}")
        rest, _, hit = rest.partition("#")
        action, _, seconds = rest.partition(":")
        try:
            fault = Fault(FaultAction(action), float(seconds or 0), int(hit or 1))
        except ValueError:
            raise ValueError(
                f"NOD_FAULTS: {entry!r}: the action is kill, raise, delay:SECONDS or hang,"
                " optionally followed by #HIT"
            ) from None
        if fault.hit < 1 or fault.seconds < 0:
            raise ValueError(f"NOD_FAULTS: {entry!r}: the hit counts from 1, seconds from 0")
        faults[name] = fault
    return faults


def arm(spec: str) -> None:
    """Arms exactly the faults `spec` names (an empty spec disarms all)."""
    faults = parse(spec)
    _armed.clear()
    _passes.clear()
    _armed.update(faults)
    if faults:
        log.warning("faults.armed", points=sorted(faults))


async def point(name: str) -> None:
    if not _armed:
        return
    fault = _armed.get(name)
    if fault is None:
        return
    passes = _passes[name] = _passes.get(name, 0) + 1
    if passes < fault.hit:
        return
    log.warning("faults.fired", point=name, action=fault.action.value, hit=passes)
    if fault.action is FaultAction.KILL:
        sys.stdout.flush()
        sys.stderr.flush()
        os.kill(os.getpid(), signal.SIGKILL)
    elif fault.action is FaultAction.RAISE:
        raise FaultInjected(f"fault injected at {name}")
    elif fault.action is FaultAction.DELAY:
        await asyncio.sleep(fault.seconds)
    else:
        await asyncio.Event().wait()
