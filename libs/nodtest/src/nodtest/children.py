"""Processes a test or benchmark starts never outlive it, however it ends.

`tied_to_me(argv)` is argv run by a few lines of Python that ask the kernel
to send the child SIGTERM when this process dies (PR_SET_PDEATHSIG, kept
across exec), then exec argv: it covers a run killed by a timeout's SIGTERM
or by SIGKILL, where no Python code of ours runs. It is not Popen's
preexec_fn: that forces a plain fork(), whose handlers gRPC (running in the
same process) turns against the child, which then dies before it starts.

Start a tied child from the thread that lives as long as the process (the
event loop's, the main one): the kernel ties it to the starting thread."""

import os
import sys

from nodtest.proc import stat_fields

# `python -c GUARD <parent pid> <program> <args...>`; a parent already gone
# before the death signal was set is seen, and the child does not start.
GUARD = (
    "import ctypes, os, signal, sys;"
    "ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM);"
    "os.getppid() == int(sys.argv[1]) or sys.exit(1);"
    "os.execv(sys.argv[2], sys.argv[2:])"
)


def tied_to_me(argv: list[str], *, python: str = sys.executable) -> list[str]:
    """argv (its first item a path to a program) as a child that gets
    SIGTERM when this process dies. `python` runs the guard: the system's
    for a child started as another user, who may not reach this one's."""
    return [python, "-c", GUARD, str(os.getpid()), *argv]


def still_running(groups: list[int]) -> list[int]:
    """The processes, zombies aside, in these process groups: a group is
    what a child started in a session of its own leaves behind it."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or (fields := stat_fields(entry)) is None:
            continue
        if fields[0] != "Z" and int(fields[2]) in groups:
            found.append(int(entry))
    return found
