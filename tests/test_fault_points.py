"""Every fault point is exercised: each one listed in nodkit.fault_points
has a case per action (kill, raise, hang) among the tests marked
fault_points in the deep tier (NOD_FAULT_CASES=all, make soak), and at
least one case in the fast tier (make test), where every action still
meets some point; cases are found by the point's name in their id. Each
case checks that its point fired, so a point no flow reaches fails there."""

import os
import pathlib
import subprocess
import sys

from nodkit.fault_points import POINTS
from nodtest import fault_cases
from nodtest.fault_cases import ACTIONS

ROOT = pathlib.Path(__file__).resolve().parent.parent


def fault_point_cases(tier: dict[str, str]) -> list[str]:
    listed = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-m", "fault_points"],
        cwd=ROOT,
        env={**os.environ, fault_cases.SETTING: "", **tier},
        capture_output=True,
        text=True,
        timeout=240,
        check=True,
    )
    return [line for line in listed.stdout.splitlines() if "::" in line]


def has_case(cases: list[str], point: str, action: str) -> bool:
    return any(point in case and action in case.rpartition("[")[2] for case in cases)


def test_every_fault_point_has_a_case_per_action_in_the_deep_tier():
    cases = fault_point_cases(fault_cases.EVERY_ACTION)
    missing = [
        f"{point}={action}"
        for point in POINTS
        for action in ACTIONS
        if not has_case(cases, point, action)
    ]
    assert not missing, f"fault points with no case: {missing}"


def test_the_fast_tier_meets_every_point_and_every_action():
    cases = fault_point_cases({})
    unmet = [p for p in POINTS if not any(has_case(cases, p, a) for a in ACTIONS)]
    assert not unmet, f"fault points the fast tier never fires: {unmet}"
    for action in ACTIONS:
        assert any(has_case(cases, p, action) for p in POINTS), f"no fast case {action}s"
    # One case a point: the cross product is the deep tier's.
    assert len(cases) < len(POINTS) * len(ACTIONS)


def test_the_fault_point_check_in_lint_passes():
    checked = subprocess.run(
        [sys.executable, "scripts/fault_points.py"], cwd=ROOT, capture_output=True, text=True
    )
    assert checked.returncode == 0, checked.stderr
