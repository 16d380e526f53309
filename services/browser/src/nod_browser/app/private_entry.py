"""EnterPrivate: a claim first, then fill and submit, then a definite end.

Every target is found on the page before anything is claimed, so a bad
target costs nothing; fields named by refs are marked private in that same
look (a mark only makes page reads mask the field). Claim (holder = this
runner; where the values would go: the top page's origin, the origin of the
frame holding the fields and the origin the submit element's form goes to,
which the claims service checks against the value's binding, G13): not
granted (a resend, or a concurrent call of the same operation) touches
nothing; a resend whose targets are gone is answered from the record
(FindClaim). Granted: fill, press submit once,
MarkSubmitted. Whatever stops it before the submit click completed (an
error, the deadline, Stop, the caller going away) ends in MarkUncertain,
shielded from cancellation.
"""

import asyncio
import contextvars
import time
from dataclasses import dataclass

from nod.claims.v1 import claims_pb2
from nod_browser.adapters.claims_client import ClaimsClient
from nod_browser.adapters.filling import (
    NoMatchingOption,
    Placement,
    check_expiry_selects,
    entry_marks,
    fill_fields,
    interrupted_reason,
    press_submit,
)
from nod_browser.adapters.locating import locate_all, submission_target
from nod_browser.app.claim_ends import ClaimEnds
from nod_browser.app.entry_claims import EntryClaims
from nod_browser.app.sessions import Session
from nod_browser.domain.addresses import entry_destination, origin_of
from nod_browser.domain.entry import EntryKind, EntryRequest, code_valid_from
from nod_browser.settings import BrowserSettings
from nodkit import faults
from nodkit.errors import DomainError, FailedPrecondition
from nodkit.logging import get_logger

log = get_logger("nod_browser.private_entry")


@dataclass(frozen=True)
class EntryResult:
    claim: claims_pb2.Claim
    # True only for the call that was granted the claim and typed.
    entered: bool


class PrivateEntries:
    def __init__(self, claims: ClaimsClient, ends: ClaimEnds, settings: BrowserSettings) -> None:
        self._claims = EntryClaims(claims, ends)
        self._settings = settings

    async def enter(self, session: Session, request: EntryRequest) -> EntryResult:
        try:
            destination, places, submit = await self._find_targets(session, request)
        except DomainError:
            # The page moved on (or never had them). A resend is answered
            # from the record; anything else is refused as the page stands.
            earlier = await self._claims.earlier_claim(session, request)
            if earlier is not None:
                return EntryResult(earlier, entered=False)
            raise
        with self._claims.working_on(session, request.operation_id):
            # Claim answers a resend too: not granted, the claim as it stands.
            grant = await self._claims.claim(session, request, destination)
            if not grant.granted:
                log.info("entry.not_granted", claim_id=grant.claim.id, state=grant.claim.state)
                return EntryResult(grant.claim, entered=False)
            return EntryResult(await self._enter_granted(session, grant, places, submit), True)

    async def _find_targets(self, session: Session, request: EntryRequest):
        if origin_of(session.page.url) is None:
            raise FailedPrecondition("navigate to the site first", reason="NO_ORIGIN")
        fields = sorted(request.fields.items())
        marks = entry_marks([name for name, _ in fields])
        targets = {f"fields.{name}": target for name, target in fields}
        if request.submit:
            targets["submit"] = request.submit
        try:
            async with asyncio.timeout(self._settings.action_timeout_s):
                found = await locate_all(
                    session.page,
                    session.frames,
                    targets,
                    {f"fields.{name}": marks[name] for name, _ in fields},
                )
                submit = found.get("submit")
                action = await submission_target(submit.element) if submit else None
        except TimeoutError:
            raise FailedPrecondition(
                "the page is still loading; read it again", reason="PAGE_BUSY"
            ) from None
        places = []
        for name, target in fields:
            at = found[f"fields.{name}"]
            places.append(Placement(name, target, at.element, marks[name], at.frame, at.boxes))
        try:
            await check_expiry_selects(places, time.gmtime().tm_year)
        except NoMatchingOption as wrong:
            raise FailedPrecondition(
                f"fields.{wrong.name}: that select has no option a card's expiry could take",
                reason="NO_MATCHING_OPTION",
                field=f"fields.{wrong.name}",
            ) from None
        # Where the values would go, for the claims service to hold against
        # the value's binding (G13).
        destination = entry_destination(
            session.page.url,
            [place.frame.url for place in places],
            action_url=action,
            submit_frame_url=submit.frame.url if submit is not None else None,
            embeds=request.kind == EntryKind.CARD,
        )
        return destination, places, submit.element if submit is not None else None

    async def _enter_granted(self, session, grant, places, submit) -> claims_pb2.Claim:
        claim_id = grant.claim.id
        log.info("entry.granted", claim_id=claim_id, task_id=session.task_id)
        progress = {"stage": "starting the entry"}
        # SUBMITTED is recorded from the moment the site has answered the
        # submission (the values reached it), while the page still loads.
        # The request guard calls this from its own task: the end still
        # goes out under this call's context (its request id).
        recording_submitted: list[asyncio.Task] = []
        this_call = contextvars.copy_context()

        async def submit_answered() -> None:
            await faults.point("browser.submit_pressed")
            if not recording_submitted:
                end = self._claims.finish(session.owner, claim_id, None)
                loop = asyncio.get_running_loop()
                recording_submitted.append(loop.create_task(end, context=this_call))

        try:
            await faults.point("browser.grant_received")
            # A second sign-in in one TOTP window was given the next step's
            # code: it is typed once that step begins (at most one step away),
            # before the entry's own time starts.
            if (wait_s := code_valid_from(grant.secret_fields) - time.time()) > 0:
                progress["stage"] = "waiting for the one-time code's time step"
                await asyncio.sleep(wait_s)
            deadline = asyncio.get_running_loop().time() + self._settings.entry_timeout_s
            async with asyncio.timeout_at(deadline):
                await fill_fields(
                    session.page,
                    grant,
                    places,
                    entered=session.entered,
                    action_timeout_s=self._settings.action_timeout_s,
                    progress=progress,
                )
                await faults.point("browser.fields_filled")
                if submit is not None:
                    await press_submit(
                        session.page,
                        submit,
                        submit_answers=session.submit_answers,
                        on_submit_answered=submit_answered,
                        deadline=deadline,
                        progress=progress,
                    )
                    await faults.point("browser.answer_seen")
        except (Exception, asyncio.CancelledError) as error:  # noqa: BLE001 - every failure ends it
            reason = interrupted_reason(progress["stage"], error)
            if recording_submitted:
                # The site had the values; what failed came after: still SUBMITTED.
                log.warning("entry.submitted_then_interrupted", claim_id=claim_id, reason=reason)
                return await asyncio.shield(recording_submitted[0])
            log.warning("entry.interrupted", claim_id=claim_id, reason=reason)
            ended = await asyncio.shield(self._claims.finish(session.owner, claim_id, reason))
            if isinstance(error, NoMatchingOption):
                # Refused as the page stands, like a target not found: the
                # claim records why (nothing was typed), the caller is told which field.
                raise FailedPrecondition(
                    f"fields.{error.name}: {reason}",
                    reason="NO_MATCHING_OPTION",
                    field=f"fields.{error.name}",
                    claim_id=ended.id,
                ) from None
            return ended
        finally:
            grant.secret_fields.clear()
        log.info("entry.submitted", claim_id=claim_id, pressed=submit is not None)
        if recording_submitted:
            ended = await asyncio.shield(recording_submitted[0])
        else:
            ended = await asyncio.shield(self._claims.finish(session.owner, claim_id, None))
        await faults.point("browser.submitted_recorded")
        return ended
