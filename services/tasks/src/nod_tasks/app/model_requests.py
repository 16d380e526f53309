"""Asking the model, under G10's retry policy (domain/retry.py): every
attempt is written to the task's history; a temporary failure is tried again
after the wait the policy gives; anything else ends the asking. This is the
only retry loop in nod."""

import asyncio
from collections.abc import Awaitable, Callable

from nod_tasks.domain.model import ModelProvider, ModelReply, ModelRequest
from nod_tasks.domain.retry import MAX_ATTEMPTS, ModelFailure, RetryDecision, decide
from nodkit import faults
from nodkit.metrics import count_model_request

# (attempt, failure or None for a good answer, the decision) -> written down
Record = Callable[[int, ModelFailure | None, RetryDecision | None], Awaitable[None]]


class ModelGaveUp(Exception):
    def __init__(self, failure: ModelFailure, decision: RetryDecision) -> None:
        super().__init__(str(failure))
        self.failure = failure
        self.decision = decision


async def ask(provider: ModelProvider, request: ModelRequest, record: Record) -> ModelReply:
    for attempt in range(1, MAX_ATTEMPTS + 1):
        try:
            await faults.point("tasks.model_request_sent")
            reply = await provider.complete(request)
        except ModelFailure as failure:
            decision = decide(attempt, failure)
            count_model_request(provider.name, _status(failure), retried=decision.retry)
            await record(attempt, failure, decision)
            if not decision.retry:
                raise ModelGaveUp(failure, decision) from None
            await asyncio.sleep(decision.wait_s)
            continue
        await faults.point("tasks.model_answered")
        count_model_request(provider.name, "ok", retried=False)
        await record(attempt, None, None)
        return reply
    raise AssertionError("the retry policy never allows more than MAX_ATTEMPTS")


def _status(failure: ModelFailure) -> str:
    """A bounded label: the HTTP status, else the kind of failure."""
    if failure.kind == "http" and failure.status is not None:
        return str(failure.status)
    return failure.kind
