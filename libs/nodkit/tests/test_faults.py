"""Fault points: what NOD_FAULTS arms and what each action does, seen from
outside the point (a process killed, an error raised, a call held)."""

import asyncio
import subprocess
import sys

import pytest

from nodkit import faults
from nodkit.settings import ServiceSettings


@pytest.fixture(autouse=True)
def disarmed():
    yield
    faults.arm("")


def test_a_misspelt_point_or_action_is_refused_when_the_settings_are_read():
    with pytest.raises(ValueError, match=r"no fault point is named 'claims\.nope'"):
        ServiceSettings(service_token="t", faults="claims.nope=kill")
    with pytest.raises(ValueError, match="the action is kill, raise"):
        ServiceSettings(service_token="t", faults="claims.claim_received=explode")
    with pytest.raises(ValueError, match="not name=action"):
        ServiceSettings(service_token="t", faults="claims.claim_received")


async def test_nothing_happens_at_a_point_nobody_armed():
    faults.arm("tasks.taken=raise")
    await faults.point("claims.claim_received")


async def test_raise_fires_from_the_hit_it_names_on():
    faults.arm("claims.claim_received=raise#2")
    await faults.point("claims.claim_received")
    for _ in range(2):
        with pytest.raises(faults.FaultInjected, match=r"claims\.claim_received"):
            await faults.point("claims.claim_received")


async def test_delay_waits_and_hang_waits_until_cancelled():
    faults.arm("claims.claim_received=delay:0.2,claims.reply_sending=hang")
    loop = asyncio.get_running_loop()
    started = loop.time()
    await faults.point("claims.claim_received")
    assert loop.time() - started >= 0.2
    with pytest.raises(TimeoutError):
        await asyncio.wait_for(faults.point("claims.reply_sending"), 0.3)


def test_kill_ends_the_process_at_once_saying_where():
    program = (
        "import asyncio; from nodkit import faults; from nodkit.logging import configure_logging;"
        "configure_logging('t'); faults.arm('claims.claim_after_commit=kill');"
        "asyncio.run(faults.point('claims.claim_after_commit')); print('survived')"
    )
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True)
    assert done.returncode == -9
    assert "survived" not in done.stdout
    assert "claims.claim_after_commit" in done.stderr + done.stdout
