"""One-time codes as a person reads them off an authenticator app."""

import asyncio
import time

import pyotp

from nodtest.canaries import register

# seed -> the last time step whose code this test process handed out
_handed_out: dict[str, int] = {}


async def unused_code(seed: str) -> str:
    """The current code, unless this process handed it out already: then the
    next one, once it shows. A site refuses a code it accepted before (RFC 6238
    5.2), so a person whose code was just used waits for the next, and so do
    tests that share one site."""
    totp = pyotp.TOTP(seed)
    step = int(time.time()) // totp.interval
    if step <= (last := _handed_out.get(seed, -1)):
        step = last + 1
        await asyncio.sleep(step * totp.interval - time.time() + 0.05)
    _handed_out[seed] = step
    return register(totp.at(step * totp.interval), "one-time code")


def wrong_code(seed: str) -> str:
    """A code the site refuses: the current one with its last digits moved
    on by one (no site's window holds it), as a person mistypes it. Not
    handed out, so the right code after it waits for no new time step."""
    code = pyotp.TOTP(seed).now()
    return register(f"{(int(code) + 1) % 10 ** len(code):0{len(code)}d}", "one-time code")
