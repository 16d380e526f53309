"""Every call counted, per method and status. The access log writes a call
at INFO only when it failed or was slow (every call at DEBUG), so these
counts are how an operator sees the volume: one log line a minute."""

from collections import Counter

from nodkit.background import every
from nodkit.logging import get_logger

log = get_logger("nodkit.metrics")
REPORT_EVERY_S = 60.0
_calls: Counter[str] = Counter()


def count_call(method: str, status: str) -> None:
    _calls[f"{method} {status}"] += 1


def counted() -> dict[str, int]:
    """The counts since the last report (and clears them)."""
    counts = dict(_calls)
    _calls.clear()
    return counts


async def _report() -> None:
    if counts := counted():
        log.info("rpc.counts", calls=counts, interval_s=REPORT_EVERY_S)


async def report_forever() -> None:
    await every(REPORT_EVERY_S, _report, event="rpc.counts")
