"""G10, the one exception to "never retry": a request to the model provider
that failed for a temporary reason is tried again, up to four attempts in
all, waiting as the provider asks (Retry-After) or backing off. Nothing else
anywhere in nod retries a side effect, and a model retry never repeats a
tool call (tool calls are steps, recorded before they run)."""

from dataclasses import dataclass

TEMPORARY_STATUSES = frozenset({429, 500, 502, 503, 504, 529})
MAX_ATTEMPTS = 4
# Longer than this and the task ends, asking the person to continue later.
MAX_RETRY_AFTER_S = 60.0
FIRST_BACKOFF_S = 0.5
MAX_BACKOFF_S = 8.0


@dataclass(eq=False)
class ModelFailure(Exception):
    """A request to the model provider that got no usable answer."""

    # The HTTP status, or None (no answer at all).
    status: int | None
    # "http", "connection", "read_timeout", "bad_answer" or "other".
    kind: str
    detail: str
    retry_after_s: float | None = None
    # The answer had begun to stream: resending would not be the same request.
    streamed: bool = False

    def __str__(self) -> str:
        return self.detail


@dataclass(frozen=True)
class RetryDecision:
    retry: bool
    wait_s: float = 0.0
    why: str = ""
    # The provider asked to wait longer than a task may: continue later.
    wait_too_long: bool = False


def is_temporary(failure: ModelFailure) -> bool:
    if failure.kind in ("connection", "read_timeout"):
        return True
    return failure.kind == "http" and failure.status in TEMPORARY_STATUSES


def decide(attempt: int, failure: ModelFailure) -> RetryDecision:
    """What to do after attempt number `attempt` (1-based) failed."""
    if failure.streamed:
        return RetryDecision(False, why="the answer had begun: it is not sent again")
    if not is_temporary(failure):
        return RetryDecision(False, why="not a temporary error")
    if attempt >= MAX_ATTEMPTS:
        return RetryDecision(False, why=f"{MAX_ATTEMPTS} attempts made")
    if failure.retry_after_s is not None:
        if failure.retry_after_s > MAX_RETRY_AFTER_S:
            return RetryDecision(
                False,
                why=f"the provider asked to wait {failure.retry_after_s:g} s",
                wait_too_long=True,
            )
        return RetryDecision(True, max(failure.retry_after_s, 0.0), "as the provider asked")
    backoff = min(FIRST_BACKOFF_S * 2 ** (attempt - 1), MAX_BACKOFF_S)
    return RetryDecision(True, backoff, "temporary error")
