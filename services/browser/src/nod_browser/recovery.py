"""This runner's claims across restarts (G12).

Before it reports SERVING, the runner calls ReleaseHolder with its instance
id: whatever a previous life was entering ends UNCERTAIN, and the lease is
live again. Then RenewHolder (a nodkit.background.every loop in wiring.py) keeps the lease alive
well inside the claims service's ttl, so its sweeper leaves this runner's
RUNNING claims alone.
"""

import asyncio

from nod_browser.adapters.claims_client import ClaimsClient
from nodkit.client import NodRpcError
from nodkit.logging import get_logger
from nodkit.metrics import count_sweep

log = get_logger("nod_browser.recovery")
RESTART_REASON = "the browser runner holding it restarted"


async def release_previous_life(claims: ClaimsClient, poll_s: float) -> None:
    """Repeated until it succeeds: nothing can be in flight before SERVING,
    so a release that may already have happened changes nothing the second time."""
    while True:
        try:
            released = await claims.release_holder(RESTART_REASON)
        except NodRpcError as error:
            log.warning("holder.release_failed", status=error.code.name, retry_in_s=poll_s)
            await asyncio.sleep(poll_s)
            continue
        count_sweep("browser", "boot", released)
        # News only when a claim it held ended UNCERTAIN; else part of the start.
        (log.warning if released else log.debug)(
            "holder.released", holder=claims.holder, uncertain=released
        )
        return
