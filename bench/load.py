"""Closed-loop load: N callers each issue calls back to back for a fixed time."""

import asyncio
import statistics
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass


@dataclass
class Figures:
    calls_per_s: float
    p50_ms: float
    p99_ms: float
    errors: int


async def run_load(call: Callable[[], Awaitable[None]], callers: int, seconds: float) -> Figures:
    latencies: list[float] = []
    errors = 0
    stop_at = time.perf_counter() + seconds

    async def caller() -> None:
        nonlocal errors
        while time.perf_counter() < stop_at:
            started = time.perf_counter()
            try:
                await call()
            except Exception:  # noqa: BLE001 - counted and reported, not hidden
                errors += 1
                continue
            latencies.append(time.perf_counter() - started)

    began = time.perf_counter()
    await asyncio.gather(*(caller() for _ in range(callers)))
    elapsed = time.perf_counter() - began
    latencies.sort()
    return Figures(
        calls_per_s=len(latencies) / elapsed,
        p50_ms=statistics.median(latencies) * 1000 if latencies else float("nan"),
        p99_ms=latencies[int(len(latencies) * 0.99) - 1] * 1000 if latencies else float("nan"),
        errors=errors,
    )
