"""The claims side of one private entry: look for an earlier claim of the
operation, claim it, end it. Reads may be repeated; Claim, MarkSubmitted and
MarkUncertain are each called once and never retried (G4, G5)."""

import asyncio
from collections import Counter
from contextlib import contextmanager

from nod.claims.v1 import claims_pb2
from nod_browser.claim_errors import refusal_for, unrecorded
from nod_browser.claims_client import ClaimsClient
from nod_browser.domain import EntryRequest
from nod_browser.sessions import Session
from nodkit.client import NodRpcError
from nodkit.errors import AlreadyExists
from nodkit.logging import get_logger

log = get_logger("nod_browser.entry_claims")
LOST_GRANT = "the runner lost the claims service's answer; nothing was typed"


class EntryClaims:
    def __init__(self, claims: ClaimsClient) -> None:
        self._claims = claims
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
        """A resend is answered from the record, without touching the page
        (which may still be waiting for the first submission's answer)."""
        try:
            claim = await self._claims.find(session.owner, session.task_id, request.operation_id)
        except NodRpcError:
            return None  # the Claim call decides
        if claim is not None and claim.item_id != request.item_id:
            raise AlreadyExists(
                "operation_id was already used for a different entry; use a new operation id",
                reason="OPERATION_ID_REUSED",
            )
        return claim

    async def claim(self, session: Session, request: EntryRequest, origin: str):
        try:
            return await self._claims.claim(session.owner, request, origin, session.task_id)
        except NodRpcError as error:
            log.warning("entry.claim_failed", status=error.code.name, reason=error.reason)
            if error.may_have_happened:
                await asyncio.shield(self._settle_lost_grant(session, request.operation_id))
            raise refusal_for(error) from None
        except asyncio.CancelledError:
            await asyncio.shield(self._settle_lost_grant(session, request.operation_id))
            raise

    async def _settle_lost_grant(self, session: Session, operation_id: str) -> None:
        """A Claim without a definite answer may have been granted to us with
        nobody to type it: end it UNCERTAIN now (one look, no retry) instead of
        leaving it RUNNING until this runner restarts."""
        if self._active[(session.owner, operation_id)] > 1:
            return  # another call of ours may be typing it right now
        try:
            claim = await self._claims.find(
                session.owner, session.task_id, operation_id, claims_pb2.CLAIM_STATE_RUNNING
            )
            if claim is not None and claim.holder == self._claims.holder:
                await self._claims.mark_uncertain(session.owner, claim.id, LOST_GRANT)
                log.warning("entry.lost_grant_settled", claim_id=claim.id)
        except NodRpcError as error:
            log.warning("entry.lost_grant_unsettled", status=error.code.name)

    async def finish(self, owner: str, claim_id: str, uncertain_reason: str | None):
        """SUBMITTED (reason None) or UNCERTAIN; the claim as it ended."""
        try:
            if uncertain_reason is None:
                return await self._claims.mark_submitted(owner, claim_id)
            return await self._claims.mark_uncertain(owner, claim_id, uncertain_reason)
        except NodRpcError as error:
            log.error("entry.end_not_recorded", claim_id=claim_id, status=error.code.name)
            what = "the values were submitted" if uncertain_reason is None else "it was interrupted"
            raise unrecorded(claim_id, what) from None
