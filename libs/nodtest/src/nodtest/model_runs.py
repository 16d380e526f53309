"""Running a hypothesis state machine against real services: the seed every
run prints (and takes back from NOD_HYPOTHESIS_SEED to replay a failure),
the step budget (NOD_SOAK_SCALE multiplies it for a deep run), and one event
loop the machine's synchronous rules drive the services' async clients on."""

import asyncio
import math
import os
import secrets
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

import grpc
from hypothesis import HealthCheck, Phase, seed, settings
from hypothesis.stateful import RuleBasedStateMachine, run_state_machine_as_test

from nodkit.client import open_channel
from nodtest import soak_report
from nodtest.soak_report import soak_scale

T = TypeVar("T")


class Loop:
    """One event loop for a whole run: the services, their channels and the
    machine's calls all live on it."""

    def __init__(self) -> None:
        self._loop = asyncio.new_event_loop()

    def run(self, coro: Coroutine[Any, Any, T]) -> T:
        return self._loop.run_until_complete(coro)

    def close(self) -> None:
        self._loop.run_until_complete(self._loop.shutdown_asyncgens())
        self._loop.close()


def shrinking() -> bool:
    return os.environ.get("NOD_HYPOTHESIS_SHRINK", "") not in ("", "0")


def run_seed() -> int:
    given = os.environ.get("NOD_HYPOTHESIS_SEED", "").strip()
    return int(given) if given else secrets.randbits(64)


def run_machine(
    name: str,
    factory: Callable[[], RuleBasedStateMachine],
    *,
    examples: int,
    steps: int,
    min_steps: int,
    steps_done: Callable[[], int],
) -> None:
    """Runs `examples` x `steps` steps, again (with the next seed) until at
    least `min_steps` steps ran (hypothesis ends some examples early), all
    times NOD_SOAK_SCALE. The seed is printed first, so a failure replays
    with NOD_HYPOTHESIS_SEED=<seed> (NOD_HYPOTHESIS_SHRINK=1 to shrink it)."""
    chosen = run_seed()
    scale = soak_scale()
    print(
        f"{name}: NOD_HYPOTHESIS_SEED={chosen} "
        f"(at least {min_steps * scale} steps, {examples * scale} examples x {steps} steps"
        " a round)",
        flush=True,
    )
    run_round(factory, chosen, examples * scale, steps)
    round_seed = chosen
    while (missing := min_steps * scale - steps_done()) > 0:
        # Another round, just long enough, if hypothesis ended examples early.
        round_seed += 1
        run_round(factory, round_seed, max(2, math.ceil(missing / steps)), steps)
    # A violation fails the run above, so what reaches the report is clean.
    soak_report.report(
        f"state machine: {name}", operations=steps_done(), faults={}, duplicates=0, running_left=0
    )


def run_round(
    factory: Callable[[], RuleBasedStateMachine], round_seed: int, examples: int, steps: int
) -> None:
    run_settings = settings(
        max_examples=examples,
        stateful_step_count=steps,
        database=None,
        deadline=None,
        derandomize=False,
        print_blob=True,
        # Real services are slow next to hypothesis's expectations: a
        # failure is printed step by step and replayed from the seed;
        # shrinking it (minutes of real calls) is asked for explicitly.
        phases=[Phase.explicit, Phase.generate, *([Phase.shrink] if shrinking() else [])],
        suppress_health_check=list(HealthCheck),
    )

    def machine() -> RuleBasedStateMachine:
        return factory()

    # The factory may be any callable; hypothesis reads the seed off it.
    run_state_machine_as_test(seed(round_seed)(machine), settings=run_settings)  # type: ignore[arg-type]


class InProcess:
    """A real service started in this process on a free port, which a rule
    can restart (stop, then start again with the same settings: the same
    instance id, so the boot reconcile runs as it does after a crash)."""

    def __init__(self, start: Callable[[], Coroutine[Any, Any, Any]]) -> None:
        self._start = start
        self._running: Any = None
        self.channel: grpc.aio.Channel | None = None
        self.restarts = 0
        self._stubs: dict[type, Any] = {}

    async def start(self) -> None:
        self._running = await self._start()
        self.channel = open_channel(self._running.address)
        self._stubs.clear()

    def stub(self, stub_class: type[T]) -> T:
        """A stub of that class on the current channel (new after a restart)."""
        if stub_class not in self._stubs:
            self._stubs[stub_class] = stub_class(self.channel)  # type: ignore[call-arg]
        return self._stubs[stub_class]

    async def stop(self) -> None:
        if self.channel is not None:
            await self.channel.close(None)
            self.channel = None
        if self._running is not None:
            await self._running.stop()
            self._running = None

    async def restart(self) -> None:
        await self.stop()
        await self.start()
        self.restarts += 1

    @property
    def address(self) -> str:
        return str(self._running.address)
