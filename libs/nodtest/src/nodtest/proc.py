"""What /proc (Linux) says of a process and its children, for the
benchmarks' memory figures and the long-run tests'."""

import os
import pathlib

MIB = 1024  # /proc reports kB
TICKS_PER_S = os.sysconf("SC_CLK_TCK")


def stat_fields(pid: int | str) -> list[str] | None:
    """/proc/<pid>/stat's fields after the command name, which may hold
    spaces: state, ppid, pgrp, ..., utime and stime at 11 and 12. None for
    a process that is gone."""
    try:
        return pathlib.Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    except OSError:
        return None


def cpu_ticks(fields: list[str]) -> int:
    """User and system CPU time from stat_fields, in clock ticks."""
    return int(fields[11]) + int(fields[12])


def proc_kib(pid: int, file: str, key: str) -> int:
    """`key` (VmRSS in status, Pss in smaps_rollup) of a process, in kB;
    0 for a process that is gone (or a zombie, which has no memory)."""
    try:
        text = pathlib.Path(f"/proc/{pid}/{file}").read_text()
    except (FileNotFoundError, ProcessLookupError, PermissionError):
        return 0
    for line in text.splitlines():
        if line.startswith(f"{key}:"):
            return int(line.split()[1])
    return 0


def family(pid: int) -> list[int]:
    """The process and every descendant of it, from /proc (Linux)."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit() and (fields := stat_fields(entry)):
            children.setdefault(int(fields[1]), []).append(int(entry))
    found, todo = [], [pid]
    while todo:
        current = todo.pop()
        found.append(current)
        todo += children.get(current, [])
    return found


def rss_mib(pid: int) -> float:
    """Resident memory of one live process (VmRSS), in MiB."""
    kib = proc_kib(pid, "status", "VmRSS")
    if not kib:
        raise RuntimeError(f"no VmRSS for process {pid}")
    return kib / MIB


def tree_pss_mib(pid: int) -> float:
    """The proportional set size of a process and all its descendants, in
    MiB: shared pages counted once across them, as a pod's memory is (for
    the browser: Python, Playwright's driver and every Chromium process)."""
    return sum(proc_kib(p, "smaps_rollup", "Pss") for p in family(pid)) / MIB
