"""`make soak`: the deep tier. Runs the fault tests deeper than `make test`
does (every fault point with every action, three times over, the dependency storms and the
state machines at NOD_SOAK_SCALE times their size), then the mixed load on
two replicas of every service (soak/mixed_load.py) three ways: a replica
SIGKILLed every 30 seconds (load), rolling restarts of every replica
(rolling), and the primary of a highly available PostgreSQL killed
(failover); and prints one table of what they did.

Each part's tests add their figures to a JSON-lines report
(nodtest.soak_report); the mixed load prints its own. Exit status: 0 only
when every part passed with no duplicate, nothing RUNNING left and no
canary found.

On a 2-core machine the whole takes hours. NOD_SOAK_PARTS runs some of it
(any of faults, storms, machines, load, rolling, failover; all by
default), and
NOD_SOAK_REPORT_FILE keeps the report in a file of your choosing: runs of
different parts into the same file print one table of everything so far."""

import json
import os
import pathlib
import subprocess
import sys
import tempfile
from collections import Counter
from xml.etree import ElementTree

from nodtest import fault_cases

ROOT = pathlib.Path(__file__).resolve().parent.parent
PY = sys.executable
ROUNDS = 3
SCALE = os.environ.get("NOD_SOAK_SCALE", "50")  # 50 x 2,000 = 100,000 steps

# The fault tests of the fast tier, by their markers.
FAULT_POINTS = ["-m", "fault_points"]
STORMS = ["-m", "storm"]
MACHINES = ["-m", "state_machine"]
# As make test spreads them.
XDIST = ["-n", "3", "--dist", "loadscope"]


PARTS = ("faults", "storms", "machines", "load", "rolling", "failover")
# The mixed load's parts, each under its fault (soak/faults.py).
LOAD_FAULTS = {"load": "kill", "rolling": "roll", "failover": "failover"}


def chosen_parts() -> set[str]:
    given = os.environ.get("NOD_SOAK_PARTS", "").strip()
    chosen = {part.strip() for part in given.split(",") if part.strip()} if given else set(PARTS)
    if unknown := chosen - set(PARTS):
        raise SystemExit(f"NOD_SOAK_PARTS: {', '.join(sorted(unknown))} is not one of {PARTS}")
    return chosen


def parts(chosen: set[str]) -> list[tuple[str, list[str], dict[str, str]]]:
    # Each round meets other timings: where a kill lands mid-write, how far
    # a page had got; the cases check exact outcomes every time.
    # make test meets each point with one action; the soak with all three.
    runs = []
    if "faults" in chosen:
        every = fault_cases.EVERY_ACTION
        runs += [(f"fault points, round {n}", FAULT_POINTS, every) for n in range(1, ROUNDS + 1)]
    if "storms" in chosen:
        runs.append(("dependency storms", STORMS, {"NOD_SOAK_SCALE": "10"}))
    if "machines" in chosen:
        runs.append(("state machines", MACHINES, {"NOD_SOAK_SCALE": SCALE}))
    return runs


def run_tests(name: str, selection: list[str], env: dict[str, str], report: pathlib.Path) -> bool:
    print(f"== {name}", flush=True)
    results = report.with_name(f"{report.stem}-{len(report.read_text().splitlines())}.xml")
    pytest = [PY, "-m", "pytest", "-q", "-p", "no:cacheprovider", *XDIST]
    done = subprocess.run(
        [*pytest, f"--junitxml={results}", *selection],
        cwd=ROOT,
        env={**os.environ, **env, "NOD_SOAK_REPORT": str(report)},
        check=False,
    )
    if selection == FAULT_POINTS:
        _report_fault_point_cases(name, results, report)
    return done.returncode == 0


def _report_fault_point_cases(name: str, results: pathlib.Path, report: pathlib.Path) -> None:
    """One row for a round of fault-point cases: the cases run, the faults
    they armed by action, and the cases that failed in the duplicates
    column (each checks at-most-once and nothing RUNNING; its failure
    says which it found)."""
    cases = ElementTree.parse(results).getroot().iter("testcase") if results.exists() else []
    actions: Counter[str] = Counter()
    failed = 0
    for case in cases:
        action = next((a for a in fault_cases.ACTIONS if a in case.get("name", "")), "other")
        actions[action] += 1
        failed += any(child.tag in {"failure", "error"} for child in case)
    line = {
        "part": name,
        "operations": sum(actions.values()),
        "faults": dict(actions),
        "duplicates": failed,
        "running left": failed,
        "canary hits": 0,
    }
    with report.open("a") as file:
        file.write(json.dumps(line) + "\n")


def run_mixed_load(report: pathlib.Path, fault: str) -> bool:
    print(f"== mixed load, {fault}", flush=True)
    done = subprocess.run(
        [PY, "-m", "soak.mixed_load"],
        cwd=ROOT,
        env={**os.environ, "NOD_SOAK_FAULT": fault},
        capture_output=True,
        text=True,
        check=False,
    )
    sys.stderr.write(done.stderr)
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    with report.open("a") as file:
        for line in lines:
            file.write(line + "\n")
    return done.returncode == 0 and bool(lines)


def table(report: pathlib.Path) -> str:
    rows: dict[str, dict] = {}
    for line in report.read_text().splitlines():
        figures = json.loads(line)
        row = rows.setdefault(
            figures["part"],
            {"operations": 0, "faults": Counter(), "dup": 0, "running": 0, "canary": 0},
        )
        row["operations"] += figures["operations"]
        row["faults"].update(figures["faults"])
        row["dup"] += figures["duplicates"]
        row["running"] += figures["running left"]
        row["canary"] += figures["canary hits"]
    out = [
        "| part | operations | faults injected by kind | duplicates | RUNNING left | canary hits |",
        "|---|---|---|---|---|---|",
    ]
    for part, row in rows.items():
        faults = ", ".join(f"{kind} {n}" for kind, n in sorted(row["faults"].items())) or "-"
        out.append(
            f"| {part} | {row['operations']} | {faults} | {row['dup']} | {row['running']}"
            f" | {row['canary']} |"
        )
    return "\n".join(out)


def main() -> int:
    chosen = chosen_parts()
    with tempfile.TemporaryDirectory() as scratch:
        kept = os.environ.get("NOD_SOAK_REPORT_FILE", "")
        report = pathlib.Path(kept).resolve() if kept else pathlib.Path(scratch) / "soak.jsonl"
        report.touch()
        passed = [run_tests(name, sel, env, report) for name, sel, env in parts(chosen)]
        for part, fault in LOAD_FAULTS.items():
            if part in chosen:
                passed.append(run_mixed_load(report, fault))
        print(table(report))
    print(
        f"make soak ({', '.join(p for p in PARTS if p in chosen)}):",
        "passed" if all(passed) else "FAILED",
    )
    return 0 if all(passed) else 1


if __name__ == "__main__":
    sys.exit(main())
