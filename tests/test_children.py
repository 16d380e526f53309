"""What a test or benchmark starts dies with it, even when it is killed
(a timeout's SIGTERM, or SIGKILL) and none of its own code runs."""

import os
import signal
import subprocess
import sys
import time

import pytest

from nodtest.children import still_running

PARENT = """
import subprocess, sys, time
from nodtest.children import tied_to_me
child = subprocess.Popen(tied_to_me([sys.executable, "-c", "import time; time.sleep(120)"]))
print(child.pid, flush=True)
time.sleep(120)
"""


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGKILL])
def test_a_tied_child_dies_with_its_parent(signum):
    parent = subprocess.Popen(
        [sys.executable, "-c", PARENT], stdout=subprocess.PIPE, text=True, start_new_session=True
    )
    group = [parent.pid]
    try:
        child = int(parent.stdout.readline())  # type: ignore[union-attr]
        assert sorted(still_running(group)) == sorted([parent.pid, child])
        parent.send_signal(signum)
        parent.wait(timeout=10)
        deadline = time.monotonic() + 10
        while still_running(group) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert still_running(group) == []
    finally:
        if still_running(group):
            os.killpg(parent.pid, signal.SIGKILL)
