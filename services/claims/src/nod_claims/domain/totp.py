"""Codes from a saved login's TOTP seed (RFC 6238), each time step granted
once per account: a site must refuse a code used before (section 5.2), so a
second sign-in in the same 30 s window is given the next step's code and
the time from which it is valid, never the same code again."""

from dataclasses import dataclass

import pyotp

from nodkit.errors import FailedPrecondition

PERIOD_S = 30
# The furthest ahead a code is granted: the runner waits for its step to begin.
MAX_STEPS_AHEAD = 1


@dataclass(frozen=True)
class TotpGrant:
    code: str
    step: int
    # When the code becomes valid (unix seconds): now, or the next step's start.
    not_before: int


def step_at(unix_time: float) -> int:
    return int(unix_time // PERIOD_S)


def next_step(now_step: int, last_granted: int | None) -> int:
    """The step to grant: this one, unless it was granted already."""
    return now_step if last_granted is None else max(now_step, last_granted + 1)


def grant(seed: str, step: int, now_step: int) -> TotpGrant:
    if step - now_step > MAX_STEPS_AHEAD:
        raise FailedPrecondition(
            "this login's one-time codes were all used just now; try again in a minute",
            reason="TOTP_STEPS_USED",
        )
    try:
        code = pyotp.TOTP(seed, interval=PERIOD_S).at(step * PERIOD_S)
    except ValueError:  # a seed saved before the vault refused unusable ones
        raise FailedPrecondition(
            "the saved login's TOTP seed can't make codes", reason="TOTP_SEED_UNUSABLE"
        ) from None
    return TotpGrant(code, step, step * PERIOD_S)
