"""What /proc (Linux) says of a process and its children, for the
benchmarks' memory figures and the long-run tests'."""

import pathlib

MIB = 1024  # /proc reports kB


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
    for stat in pathlib.Path("/proc").glob("[0-9]*/stat"):
        try:
            # pid (comm) state ppid ...; comm may hold spaces
            ppid = int(stat.read_text().rpartition(")")[2].split()[1])
        except (FileNotFoundError, ProcessLookupError, IndexError, ValueError):
            continue
        children.setdefault(ppid, []).append(int(stat.parent.name))
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
