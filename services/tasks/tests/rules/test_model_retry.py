"""G10, the one retry in nod: temporary failures of a model request are
tried again, at most four attempts, as the provider asks; nothing else."""

import pytest

from nod_tasks.domain.retry import MAX_ATTEMPTS, ModelFailure, decide


def http(status: int, retry_after: float | None = None) -> ModelFailure:
    return ModelFailure(status, "http", f"HTTP {status}", retry_after_s=retry_after)


@pytest.mark.parametrize("status", [429, 500, 502, 503, 504, 529])
def test_temporary_statuses_are_retried(status):
    assert decide(1, http(status)).retry


@pytest.mark.parametrize("status", [400, 401, 403, 404, 422, 501])
def test_other_statuses_are_not(status):
    assert not decide(1, http(status)).retry


def test_connection_errors_and_read_timeouts_are_retried():
    assert decide(1, ModelFailure(None, "connection", "refused")).retry
    assert decide(1, ModelFailure(None, "read_timeout", "slow")).retry
    assert not decide(1, ModelFailure(200, "bad_answer", "not JSON")).retry


def test_four_attempts_at_most():
    assert decide(MAX_ATTEMPTS - 1, http(503)).retry
    assert not decide(MAX_ATTEMPTS, http(503)).retry
    assert MAX_ATTEMPTS == 4


def test_retry_after_is_honoured_and_a_long_one_ends_the_asking():
    assert decide(1, http(429, 2.5)).wait_s == 2.5
    too_long = decide(1, http(429, 61))
    assert not too_long.retry and too_long.wait_too_long


def test_an_answer_that_had_begun_is_never_sent_again():
    streamed = ModelFailure(None, "connection", "cut", streamed=True)
    assert not decide(1, streamed).retry


def test_backoff_doubles():
    waits = [decide(n, http(500)).wait_s for n in (1, 2, 3)]
    assert waits == [0.5, 1.0, 2.0]
