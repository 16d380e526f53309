"""Codes from a saved login's TOTP seed (RFC 6238), each time step given once
per account: a site refuses a code used before (section 5.2), whoever typed
it. An account is the site and the username, and also the seed itself: the
same seed saved twice, by one person or by two, under another name or site,
makes the same codes. A sign-in takes the current step, or the next one when
the current one was given (its code typed once that step begins); with both
given it is refused until a step is free, never booked further ahead."""

import base64
import binascii
import math
from dataclasses import dataclass

import pyotp

from nodkit.errors import FailedPrecondition

PERIOD_S = 30
# The furthest ahead a code is given: the runner waits for its step to begin.
MAX_STEPS_AHEAD = 1


@dataclass(frozen=True)
class TotpGrant:
    code: str
    step: int
    # When the code becomes valid (unix seconds): now, or the next step's start.
    not_before: int


@dataclass(frozen=True)
class Account:
    """What makes two saved logins one account, spelled the same however
    each was saved. It is private (a username, a seed): only keyed hashes of
    it are ever stored."""

    origin: str
    username: str
    # Base32 without padding, of the seed's key.
    seed: str


def step_at(unix_time: float) -> int:
    return int(unix_time // PERIOD_S)


def steps_to_try(now_step: int) -> range:
    """The current step first, then the ones after it a sign-in may wait for."""
    return range(now_step, now_step + MAX_STEPS_AHEAD + 1)


def canonical_seed(seed: str) -> str:
    """The seed's key in one spelling, however it was saved (spaces, case,
    padding)."""
    text = seed.replace(" ", "").upper().rstrip("=")
    try:
        key = base64.b32decode(text + "=" * (-len(text) % 8))
    except binascii.Error:  # a seed saved before the vault refused unusable ones
        raise _unusable_seed() from None
    return base64.b32encode(key).decode().rstrip("=")


def account_of(origin: str, username: str, seed: str) -> Account:
    # Sites compare usernames without case as a rule; treating two spellings
    # as one account costs at most a wait for the next step.
    return Account(origin, username.strip().casefold(), canonical_seed(seed))


def grant(seed: str, step: int) -> TotpGrant:
    try:
        code = pyotp.TOTP(seed, interval=PERIOD_S).at(step * PERIOD_S)
    except ValueError:
        raise _unusable_seed() from None
    return TotpGrant(code, step, step * PERIOD_S)


def no_step_free(now: float, last_tried: int) -> FailedPrecondition:
    """Refused: every step a sign-in may take now was given. The last of them
    begins first; from then on the step after it is free."""
    wait_s = max(1, math.ceil(last_tried * PERIOD_S - now))
    unit = "second" if wait_s == 1 else "seconds"
    return FailedPrecondition(
        f"a one-time code for this account was just used; try again in {wait_s} {unit}",
        reason="NO_CODE_STEP_FREE",
        retry_after_s=str(wait_s),
    )


def _unusable_seed() -> FailedPrecondition:
    return FailedPrecondition(
        "the saved login's one-time-code seed can't make codes; save it again",
        reason="TOTP_SEED_UNUSABLE",
    )
