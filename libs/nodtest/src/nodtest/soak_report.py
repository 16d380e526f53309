"""Figures a fault test reports for `make soak`'s table.

Under `make soak` (soak/run.py), NOD_SOAK_REPORT names a file of JSON
lines; each test of the deep tier adds what it did there. Outside the soak
nothing is written: the tests assert the same figures either way."""

import json
import os
from collections.abc import Mapping


def report(
    part: str,
    *,
    operations: int,
    faults: Mapping[str, int],
    duplicates: int,
    running_left: int,
    canary_hits: int = 0,
) -> None:
    path = os.environ.get("NOD_SOAK_REPORT")
    if not path:
        return
    line = {
        "part": part,
        "operations": operations,
        "faults": dict(faults),
        "duplicates": duplicates,
        "running left": running_left,
        "canary hits": canary_hits,
    }
    with open(path, "a", encoding="utf-8") as file:
        file.write(json.dumps(line) + "\n")


def soak_scale() -> int:
    """How many times its make-test size the deep tier runs each storm and
    state machine (NOD_SOAK_SCALE; 1 in make test)."""
    return max(1, int(os.environ.get("NOD_SOAK_SCALE", "1") or "1"))
