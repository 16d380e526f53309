"""The claims side of one private entry: look for the operation's earlier
claim, claim it, end it. Reads may be repeated; Claim is called once and
never retried (G4, G5). An end the claims service did not record is told
again in the background (claim_ends.py), never by entering again."""

import asyncio
from collections import Counter
from contextlib import contextmanager

import grpc

from nod.claims.v1 import claims_pb2
from nod_browser.adapters.claim_errors import refusal_for
from nod_browser.adapters.claims_client import ClaimsClient
from nod_browser.app.claim_ends import ClaimEnds
from nod_browser.app.sessions import Session
from nod_browser.domain.addresses import Destination
from nod_browser.domain.entry import EntryRequest
from nodkit.client import DEFINITE_REFUSALS, NodRpcError
from nodkit.errors import Unavailable
from nodkit.logging import get_logger

log = get_logger("nod_browser.entry_claims")
LOST_GRANT = "the runner lost the claims service's answer; nothing was typed"


def unrecorded(claim_id: str, what: str) -> Unavailable:
    """The entry ended but the claims service did not record how (yet): the
    claim stays RUNNING until the runner's later tries record it."""
    return Unavailable(
        f"{what}, but the claims service did not record it; treat the entry as uncertain",
        reason="CLAIM_END_NOT_RECORDED",
        claim_id=claim_id,
    )


class EntryClaims:
    def __init__(self, claims: ClaimsClient, ends: ClaimEnds) -> None:
        self._claims = claims
        self._ends = ends
        # (person, operation id) of entries this runner is working on now.
        self._active: Counter[tuple[str, str]] = Counter()

    @contextmanager
    def working_on(self, session: Session, operation_id: str):
        key = (session.owner, operation_id)
        self._active[key] += 1
        try:
            yield
        finally:
            self._active[key] -= 1
            if not self._active[key]:
                del self._active[key]

    async def earlier_claim(self, session: Session, request: EntryRequest):
        """The operation's claim, for a resend the page can no longer take
        (it moved on after the first submission). The claims service refuses
        an operation id reused for another entry."""
        try:
            return await self._claims.find(session.owner, request, session.task_id)
        except NodRpcError as error:
            if error.code == grpc.StatusCode.ALREADY_EXISTS:
                raise refusal_for(error) from None
            return None  # the Claim call decides

    async def claim(self, session: Session, request: EntryRequest, destination: Destination):
        try:
            return await self._claims.claim(session.owner, request, destination, session.task_id)
        except NodRpcError as error:
            if error.code == grpc.StatusCode.ALREADY_EXISTS:
                # Claim compares where the values would go too; a resend from
                # a page that moved on is still answered from the record.
                earlier = await self.earlier_claim(session, request)
                if earlier is not None:
                    return claims_pb2.ClaimResponse(granted=False, claim=earlier)
            log.warning("entry.claim_failed", status=error.code.name, reason=error.reason)
            if error.may_have_happened:
                await asyncio.shield(self._settle_lost_grant(session, request))
            raise refusal_for(error) from None
        except asyncio.CancelledError:
            await asyncio.shield(self._settle_lost_grant(session, request))
            raise

    async def _settle_lost_grant(self, session: Session, request: EntryRequest) -> None:
        """A Claim without a definite answer may have been granted to us with
        nobody to type it: end it UNCERTAIN now (one look) instead of leaving
        it RUNNING; when the claims service can't be asked now, it is asked
        again in the background until it answers."""
        if self._active[(session.owner, request.operation_id)] > 1:
            return  # another call of ours may be typing it right now
        try:
            await self._end_lost_grant(session, request)
        except NodRpcError as error:
            log.warning("entry.lost_grant_unsettled", status=error.code.name)
            if error.code not in DEFINITE_REFUSALS:
                self._ends.keep_settling(lambda: self._end_lost_grant_later(session, request))

    async def _end_lost_grant_later(self, session: Session, request: EntryRequest) -> None:
        if self._active.get((session.owner, request.operation_id), 0):
            return  # a later call of ours has the operation: it ends the claim itself
        await self._end_lost_grant(session, request)

    async def _end_lost_grant(self, session: Session, request: EntryRequest) -> None:
        claim = await self._claims.find(session.owner, request, session.task_id)
        if (
            claim is not None
            and claim.state == claims_pb2.CLAIM_STATE_RUNNING
            and claim.holder == self._claims.holder
        ):
            await self._ends.record(session.owner, claim.id, LOST_GRANT)
            log.warning("entry.lost_grant_settled", claim_id=claim.id)

    async def finish(self, owner: str, claim_id: str, uncertain_reason: str | None):
        """SUBMITTED (reason None) or UNCERTAIN; the claim as it ended."""
        try:
            return await self._end(owner, claim_id, uncertain_reason)
        except NodRpcError as error:
            log.error("entry.end_not_recorded", claim_id=claim_id, status=error.code.name)
            what = "the values were submitted" if uncertain_reason is None else "it was interrupted"
            raise unrecorded(claim_id, what) from None

    async def _end(self, owner: str, claim_id: str, uncertain_reason: str | None):
        """Records the end now; if the claims service may not have, keeps trying."""
        try:
            return await self._ends.record(owner, claim_id, uncertain_reason)
        except NodRpcError as error:
            if error.code not in DEFINITE_REFUSALS:
                self._ends.keep_trying(owner, claim_id, uncertain_reason)
            raise
