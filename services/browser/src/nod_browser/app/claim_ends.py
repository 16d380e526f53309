"""Ends the claims service did not record when the entry ended (it was
unreachable, or its answer was lost). The runner knows how the entry ended,
so it keeps telling the claims service, in the background with backoff,
until the end is recorded, the claims service refuses it for good (the claim
was ended otherwise, e.g. it ran too long) or the runner stops. Recording
the same end again is safe: the claims service answers a repeated transition
with the claim as it stands. The entry itself is never repeated."""

import asyncio
import random
from collections.abc import Awaitable, Callable

from nod.claims.v1 import claims_pb2
from nod_browser.adapters.claims_client import ClaimsClient
from nodkit.client import DEFINITE_REFUSALS, NodRpcError
from nodkit.logging import get_logger

log = get_logger("nod_browser.claim_ends")


class ClaimEnds:
    def __init__(self, claims: ClaimsClient, first_delay_s: float, max_delay_s: float) -> None:
        self._claims = claims
        self._first_delay_s = first_delay_s
        self._max_delay_s = max_delay_s
        self._pending: set[asyncio.Task] = set()

    async def record(self, owner: str, claim_id: str, uncertain_reason: str | None):
        """SUBMITTED (reason None) or UNCERTAIN, once; the claim as it ended."""
        if uncertain_reason is None:
            return await self._claims.mark_submitted(owner, claim_id)
        return await self._claims.mark_uncertain(owner, claim_id, uncertain_reason)

    def keep_trying(self, owner: str, claim_id: str, uncertain_reason: str | None) -> None:
        task = asyncio.ensure_future(self._until_recorded(owner, claim_id, uncertain_reason))
        self._pending.add(task)
        task.add_done_callback(self._pending.discard)

    async def _until_recorded(self, owner: str, claim_id: str, reason: str | None) -> None:
        delay_s = self._first_delay_s
        while True:
            # Jittered, so runners don't all call a claims service that just came back at once.
            await asyncio.sleep(delay_s * random.uniform(0.8, 1.2))
            try:
                claim = await self.record(owner, claim_id, reason)
            except NodRpcError as error:
                if error.code in DEFINITE_REFUSALS:
                    log.warning(
                        "entry.end_refused",
                        claim_id=claim_id,
                        status=error.code.name,
                        reason=error.reason,
                    )
                    return
                delay_s = min(delay_s * 2, self._max_delay_s)
                log.info(
                    "entry.end_still_not_recorded",
                    claim_id=claim_id,
                    status=error.code.name,
                    retry_in_s=delay_s,
                )
                continue
            state = claims_pb2.ClaimState.Name(claim.state)
            log.info("entry.end_recorded_late", claim_id=claim_id, state=state)
            return

    def keep_settling(self, settle: Callable[[], Awaitable[None]]) -> None:
        """A grant whose answer was lost while the claims service could not
        be asked about it: `settle` (look it up, end it if it is ours) is
        tried again in the background, with backoff, until it goes through
        or is refused for good. Left alone, the grant would stay RUNNING
        under this runner's live lease until the claims service's sweep."""
        task = asyncio.ensure_future(self._until_settled(settle))
        self._pending.add(task)
        task.add_done_callback(self._pending.discard)

    async def _until_settled(self, settle: Callable[[], Awaitable[None]]) -> None:
        delay_s = self._first_delay_s
        while True:
            await asyncio.sleep(delay_s * random.uniform(0.8, 1.2))
            try:
                await settle()
            except NodRpcError as error:
                if error.code in DEFINITE_REFUSALS:
                    log.warning("entry.lost_grant_refused", status=error.code.name)
                    return
                delay_s = min(delay_s * 2, self._max_delay_s)
                log.info("entry.lost_grant_still_unsettled", status=error.code.name)
                continue
            return

    async def close(self) -> None:
        for task in list(self._pending):
            task.cancel()
        await asyncio.gather(*self._pending, return_exceptions=True)
