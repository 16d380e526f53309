"""EnterPrivate: a claim first, then fill and submit, then a definite end.

Every target is found on the page before anything is claimed, so a bad
target costs nothing; fields named by refs are marked private in that same
look (a mark only makes page reads mask the field). Each field must then be
one its value may go into, shown to a person (field_rules.py), and the
submission (and each field's form) must send to the top page's origin or
the fields' frame's: else the entry is refused naming the field and the
rule, nothing claimed. Claim (holder = this runner; where the values would
go: the top page's origin, the origin of the frame holding the fields and
the origin the submit element's form goes to, which the claims service
checks against the value's binding, G13): not granted (a resend, or a
concurrent call of the same operation) touches nothing; a resend whose
targets are gone is answered from the record (FindClaim). Granted: fill
(each field checked again right before it is filled), check where the form
sends once more, press submit once,
MarkSubmitted. Whatever stops it before the submit click completed (an
error, the deadline, Stop, the caller going away, a field or form that
changed, a request carrying the values elsewhere, which the session's value
guard stops) ends in MarkUncertain, shielded from cancellation; for the
last three, what was typed is cleared first.
"""

import asyncio
import contextvars
import time
from dataclasses import dataclass, field

from playwright.async_api import Locator

from nod.claims.v1 import claims_pb2
from nod_browser.adapters.claims_client import ClaimsClient
from nod_browser.adapters.field_checks import FieldChecks, FieldState, Look
from nod_browser.adapters.filling import (
    FieldChanged,
    NoMatchingOption,
    Placement,
    SubmissionMoved,
    check_expiry_selects,
    clear_fields,
    entry_marks,
    fill_fields,
    interrupted_reason,
    press_submit,
)
from nod_browser.adapters.locating import locate_all, submission_target
from nod_browser.adapters.submission_target import submission_origin
from nod_browser.adapters.value_guard import ValuesSentElsewhere
from nod_browser.app.claim_ends import ClaimEnds
from nod_browser.app.entry_claims import EntryClaims
from nod_browser.app.sessions import Session
from nod_browser.domain.addresses import Destination, entry_destination, origin_of
from nod_browser.domain.destinations import allowed_origins, check_destination
from nod_browser.domain.entry import EntryKind, EntryRequest, code_valid_from
from nod_browser.domain.field_rules import SUBMITS_ELSEWHERE, metric_rule, refusal_text
from nod_browser.domain.targets import dom_selector, parse_ref, selector_for
from nod_browser.settings import BrowserSettings
from nodkit import faults
from nodkit.errors import DomainError, FailedPrecondition
from nodkit.logging import get_logger
from nodkit.metrics import count_entry_refusal

log = get_logger("nod_browser.private_entry")


# An entry stopped for where its values were going, or a field that changed:
# the fields are cleared before the claim ends.
STOPPED_BY_THE_PAGE = (FieldChanged, SubmissionMoved, ValuesSentElsewhere)


@dataclass(frozen=True)
class Targets:
    destination: Destination  # where the claim says the values would go
    top_origin: str  # the page's
    places: list[Placement]
    submit: Look | None
    # What the page said of each field and then the submit (field_checks.py).
    states: list[FieldState] = field(default_factory=list)
    # The origins of the fields' frames when they were found (a frame that
    # navigates afterwards takes no value along).
    field_origins: list[str | None] = field(default_factory=list)


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
        # The servicer refused it already; here too, as the claim below is
        # what must never happen on a look's session (G14).
        session.refuse_if_read_only()
        checks = FieldChecks()
        try:
            return await self._enter(session, request, checks)
        finally:
            await asyncio.shield(checks.close())

    async def _enter(
        self, session: Session, request: EntryRequest, checks: FieldChecks
    ) -> EntryResult:
        try:
            targets = await self._find_targets(session, request, checks)
            self._check_targets(targets)
        except DomainError:
            # The page moved on (or never had them). A resend is answered
            # from the record; anything else is refused as the page stands.
            earlier = await self._claims.earlier_claim(session, request)
            if earlier is not None:
                return EntryResult(earlier, entered=False)
            raise
        with self._claims.working_on(session, request.operation_id):
            # Claim answers a resend too: not granted, the claim as it stands.
            grant = await self._claims.claim(session, request, targets.destination)
            if not grant.granted:
                log.info("entry.not_granted", claim_id=grant.claim.id, state=grant.claim.state)
                return EntryResult(grant.claim, entered=False)
            return EntryResult(await self._enter_granted(session, grant, targets, checks), True)

    def _check_targets(self, targets: Targets) -> None:
        """Before the claim: each field may take its value, and every form the
        values could be sent with sends to where they may go."""
        allowed = allowed_origins(None, targets.top_origin, targets.field_origins)
        states = targets.states
        if len(states) < len(targets.places):  # never looked at: refused, as the page stands
            raise FailedPrecondition("the page is still loading; read it again", reason="PAGE_BUSY")
        try:
            destinations = []
            for place, state in zip(targets.places, states, strict=False):
                name = f"fields.{place.name}"
                if state.rule:
                    raise FailedPrecondition(
                        refusal_text(name, state.rule), reason=state.rule, field=name
                    )
                destinations.append((name, state.destination))
            # The submit's form first; then the fields' own, should a script send them.
            if len(states) > len(targets.places):
                if states[-1].rule:
                    raise FailedPrecondition(
                        "submit: the element is no longer on the page; read the page again",
                        reason="TARGET_NOT_FOUND",
                        field="submit",
                    )
                destinations.insert(0, ("submit", states[-1].destination))
            for name, destination in destinations:
                check_destination(name, destination, allowed)
        except FailedPrecondition as refused:
            count_entry_refusal(metric_rule(refused.reason))
            log.info("entry.refused", rule=refused.reason, field=refused.metadata.get("field"))
            raise

    async def _find_targets(
        self, session: Session, request: EntryRequest, checks: FieldChecks
    ) -> Targets:
        """Every target, found on the page as the only element it names, and
        what the field checks say of it: one look at the page each, side by side."""
        origin = origin_of(session.page.url)
        if origin is None:
            raise FailedPrecondition("navigate to the site first", reason="NO_ORIGIN")
        top_origin = origin
        fields = sorted(request.fields.items())
        marks = entry_marks([name for name, _ in fields])
        targets = {f"fields.{name}": target for name, target in fields}
        if request.submit:
            targets["submit"] = request.submit
        looks = _looks(session, fields, request.submit)
        try:
            async with asyncio.timeout(self._settings.action_timeout_s):
                found, states = await asyncio.gather(
                    locate_all(
                        session.page,
                        session.frames,
                        targets,
                        {f"fields.{name}": marks[name] for name, _ in fields},
                    ),
                    checks.before_claim(looks) if looks else _no_states(),
                    return_exceptions=True,
                )
        except TimeoutError:
            raise FailedPrecondition(
                "the page is still loading; read it again", reason="PAGE_BUSY"
            ) from None
        if isinstance(found, BaseException):
            raise found
        if isinstance(states, BaseException):
            raise states
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
        field_origins = [origin_of(place.frame.url) for place in places]
        submit = found.get("submit")
        action = None
        if submit is not None:
            try:
                async with asyncio.timeout(self._settings.action_timeout_s):
                    selector = dom_selector(request.submit or "")
                    action = await submission_target(submit.frame, selector, submit.element)
            except TimeoutError:
                raise FailedPrecondition(
                    "the page is still loading; read it again", reason="PAGE_BUSY"
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
        pressed = None
        if submit is not None and request.submit:
            pressed = Look(dom_selector(request.submit), submit.element, submit.frame, None)
        return Targets(destination, top_origin, places, pressed, states, field_origins)

    async def _enter_granted(
        self, session, grant, targets: Targets, checks: FieldChecks
    ) -> claims_pb2.Claim:
        places, submit = targets.places, targets.submit
        claim_id = grant.claim.id
        log.info("entry.granted", claim_id=claim_id, task_id=session.task_id)
        progress = {"stage": "starting the entry"}
        # SUBMITTED is recorded from the moment the site has answered the
        # submission (the values reached it), while the page still loads.
        # The request guard calls this from its own task: the end still
        # goes out under this call's context (its request id).
        recording_submitted: list[asyncio.Task] = []
        this_call = contextvars.copy_context()

        # The values go only where the grant lets them, from the first keystroke
        # for the session's life; the guard tells this entry of a stop while it runs.
        held = session.value_guard.watch(
            allowed_origins(grant, targets.top_origin, targets.field_origins)
        )
        filled: list[Locator] = []

        async def submit_answered() -> None:
            await faults.point("browser.submit_pressed")
            if not recording_submitted and not held.stopped.is_set():
                end = self._claims.finish(session.owner, claim_id, None)
                loop = asyncio.get_running_loop()
                recording_submitted.append(loop.create_task(end, context=this_call))

        async def fill_and_press(deadline: float) -> None:
            await fill_fields(
                session.page,
                grant,
                places,
                entered=session.entered,
                checks=checks,
                held=held,
                filled=filled,
                action_timeout_s=self._settings.action_timeout_s,
                progress=progress,
            )
            await faults.point("browser.fields_filled")
            if submit is not None:
                progress["stage"] = "checking where the form sends"
                destination = await submission_origin(submit.frame, submit.selector)
                if destination not in held.allowed:
                    raise SubmissionMoved(destination)
                await press_submit(
                    session.page,
                    submit.element,
                    submit_answers=session.submit_answers,
                    on_submit_answered=submit_answered,
                    deadline=deadline,
                    progress=progress,
                )
                await faults.point("browser.answer_seen")

        try:
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
                    await held.unless_sent_elsewhere(fill_and_press(deadline))
                if held.stopped.is_set() and not recording_submitted:
                    raise ValuesSentElsewhere(held.stopped_to)
            except (Exception, asyncio.CancelledError) as error:  # noqa: BLE001 - every failure ends it
                return await self._interrupted(
                    session, claim_id, error, progress, filled, recording_submitted
                )
            finally:
                grant.secret_fields.clear()
            log.info("entry.submitted", claim_id=claim_id, pressed=submit is not None)
            if recording_submitted:
                ended = await asyncio.shield(recording_submitted[0])
            else:
                ended = await asyncio.shield(self._claims.finish(session.owner, claim_id, None))
        finally:
            held.stop_watching()
        await faults.point("browser.submitted_recorded")
        return ended

    async def _interrupted(
        self,
        session: Session,
        claim_id: str,
        error: BaseException,
        progress: dict[str, str],
        filled: list[Locator],
        recording_submitted: list[asyncio.Task],
    ) -> claims_pb2.Claim:
        """How an entry stopped before the submit click completed ends it."""
        reason = interrupted_reason(progress["stage"], error)
        if recording_submitted:
            # The site had the values; what failed came after: still SUBMITTED.
            log.warning("entry.submitted_then_interrupted", claim_id=claim_id, reason=reason)
            return await asyncio.shield(recording_submitted[0])
        log.warning("entry.interrupted", claim_id=claim_id, reason=reason)
        if isinstance(error, STOPPED_BY_THE_PAGE):
            if not isinstance(error, ValuesSentElsewhere):  # the guard counted its stop
                count_entry_refusal(metric_rule(_rule_of(error)))
            await asyncio.shield(clear_fields(filled))
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


def _looks(session: Session, fields: list[tuple[str, str]], submit: str | None) -> list[Look]:
    """What to ask the field checks of, before the targets are found: none
    when a ref names a frame that is gone (finding them refuses that)."""
    looks = []
    for name, target in [*fields, *([("", submit)] if submit else [])]:
        ref = parse_ref(target)
        frame = (
            session.page.main_frame
            if ref is None
            else session.frames.frame_of(session.page, ref.frame_id)
        )
        if frame is None:
            return []
        element = frame.locator(selector_for(target))
        looks.append(Look(dom_selector(target), element, frame, name or None))
    return looks


async def _no_states() -> list[FieldState]:
    return []


def _rule_of(error: BaseException) -> str:
    return error.rule if isinstance(error, FieldChanged) else SUBMITS_ELSEWHERE
