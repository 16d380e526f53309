"""Which fault-point cases a run takes, by tier.

Every case starts, kills or cuts off whole services, so the cross product
of every point with every action is the deep tier's (`make soak` sets
NOD_FAULT_CASES=all). The fast tier (`make test`) meets every point once,
with kill, raise and hang taken in turn over the points in name order, so
each action meets a third of each flow's points and every point fires in
every run. Deterministic: the same cases run each time, so a failure in CI
replays with the same command."""

import os
from collections.abc import Iterable

ACTIONS = ("kill", "raise", "hang")
SETTING = "NOD_FAULT_CASES"
# What make soak adds to a run's environment for the deep tier.
EVERY_ACTION = {SETTING: "all"}


def every_action() -> bool:
    """True in the deep tier (NOD_FAULT_CASES=all)."""
    return os.environ.get(SETTING, "") == EVERY_ACTION[SETTING]


def cases(points: Iterable[str], *, offset: int = 0) -> list[tuple[str, str]]:
    """(point, action) pairs for a fault-point test to take. `offset`
    shifts the turn, for a module whose single point would otherwise
    always meet the same action as another's."""
    ordered = sorted(set(points))
    if every_action():
        return [(point, action) for point in ordered for action in ACTIONS]
    return [(point, ACTIONS[(n + offset) % len(ACTIONS)]) for n, point in enumerate(ordered)]


def actions(point: str, *, offset: int = 0) -> list[str]:
    """The actions a test of one point takes: all three in the deep tier,
    one in the fast tier (chosen by `offset`)."""
    return [action for _, action in cases([point], offset=offset)]
