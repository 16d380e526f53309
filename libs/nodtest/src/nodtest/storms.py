"""Shared pieces of the fault storms (*_commit_faults.py): their size, a
caller's channel that reconnects at once after a dropped connection, the
caller's resend after an answer that never came, and the figures a storm
prints."""

import asyncio
import random
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TypeVar

import grpc

from nodtest import soak_report
from nodtest.fault_proxy import Fault, FaultProxy

T = TypeVar("T")

# Errors after which the caller can't tell whether its call took effect.
UNKNOWN_OUTCOME = frozenset(
    {
        grpc.StatusCode.UNAVAILABLE,
        grpc.StatusCode.DEADLINE_EXCEEDED,
        grpc.StatusCode.CANCELLED,
        grpc.StatusCode.UNKNOWN,
    }
)


def fast_reconnect_channel(address: str) -> grpc.aio.Channel:
    """A caller's channel that reconnects within a tenth of a second: a storm
    drops connections hundreds of times, and the default backoff (a second,
    growing) would make it a test of backoff."""
    options = [
        ("grpc.enable_retries", 0),
        ("grpc.use_local_subchannel_pool", 1),
        ("grpc.initial_reconnect_backoff_ms", 50),
        ("grpc.min_reconnect_backoff_ms", 50),
        ("grpc.max_reconnect_backoff_ms", 100),
    ]
    return grpc.aio.insecure_channel(address, options=options)


@dataclass
class StormTally:
    name: str
    operations: int = 0
    resends: int = 0
    duplicates: int = 0
    uncertain: int = 0
    running_left: int = 0
    wrong_answers: list[str] = field(default_factory=list)

    def report(self, *proxies: FaultProxy) -> str:
        injected: Counter[Fault] = Counter()
        for proxy in proxies:
            injected.update(proxy.injected)
        kinds = ", ".join(f"{f.value}={n}" for f, n in sorted(injected.items(), key=str)) or "-"
        line = (
            f"[{self.name}] operations={self.operations} injections={sum(injected.values())}"
            f" ({kinds}) resends={self.resends} duplicates={self.duplicates}"
            f" uncertain={self.uncertain} running_left={self.running_left}"
            f" wrong_answers={len(self.wrong_answers)}"
        )
        print(line)
        soak_report.report(
            f"storm: {self.name}",
            operations=self.operations,
            faults={f.value: n for f, n in injected.items()},
            duplicates=self.duplicates,
            running_left=self.running_left,
        )
        return line


# In a fixed order, so a storm's seeded random choice among them replays.
DATABASE_LINK_FAULTS = (
    Fault.DROP_AFTER_COMMIT,
    Fault.DROP_BEFORE_COMMIT,
    Fault.DELAY_COMMIT,
    Fault.CUT_LINK,
)
SERVICE_LINK_FAULTS = (Fault.LOSE_ANSWER, Fault.DROP_REQUEST, Fault.DELAY_REQUEST, Fault.CUT_LINK)


def every_fault(to_database: FaultProxy, to_service: FaultProxy) -> list[tuple[FaultProxy, Fault]]:
    """Each fault the service's database link and its callers' link can take."""
    return [(to_database, fault) for fault in DATABASE_LINK_FAULTS] + [
        (to_service, fault) for fault in SERVICE_LINK_FAULTS
    ]


def injected_total(*proxies: FaultProxy) -> int:
    return sum(sum(proxy.injected.values()) for proxy in proxies)


def arm_at_random(rng: random.Random, choices: list[tuple[FaultProxy, Fault]], **kw) -> None:
    """Arms one of `choices` on its proxy, unless that proxy still has one pending."""
    proxy, fault = rng.choice(choices)
    if proxy.pending is None:
        proxy.arm(fault, **kw)


async def until_answered(
    call: Callable[[], Awaitable[T]], tally: StormTally, *, tries: int = 60
) -> T:
    """What a client does after an answer that never came: send the same
    request again, until a definite answer (a reply or a refusal)."""
    for attempt in range(tries):
        try:
            return await call()
        except grpc.aio.AioRpcError as error:
            if error.code() not in UNKNOWN_OUTCOME or attempt == tries - 1:
                raise
            tally.resends += 1
            await asyncio.sleep(0.02 * min(attempt + 1, 10))
    raise AssertionError("unreachable")


# Under the storms' own 300 s timeout mark; each takes 1 to 3 minutes on a
# loaded 2-core machine.
STORM_BUDGET_S = 280.0


async def run_storm(
    target_injections: int,
    callers: int,
    proxies: tuple[FaultProxy, ...],
    operation: Callable[[], Awaitable[None]],
    tally: StormTally,
) -> float:
    """`callers` callers run `operation` one after another until the proxies
    have injected `target_injections` faults; the wall time it took.

    A storm whose faults stop landing (a service answering every call with
    an error before it reaches the proxies) would go on for ever, and
    pytest's timeout can't end an asyncio test: the callers stop after
    STORM_BUDGET_S (times NOD_SOAK_SCALE) and the test's count of
    injections fails it."""

    budget_s = STORM_BUDGET_S * soak_report.soak_scale()
    started = time.monotonic()

    async def caller() -> None:
        while injected_total(*proxies) < target_injections:
            if time.monotonic() - started > budget_s:
                return
            tally.operations += 1
            await operation()

    await asyncio.gather(*(caller() for _ in range(callers)))
    return time.monotonic() - started
