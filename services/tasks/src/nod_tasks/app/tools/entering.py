"""One private entry through the browser service (G1-G4): EnterPrivate
under the step's operation id. When its answer is lost the claim is looked
up (FindClaim) instead of asking again: the claim is the truth of whether
anything was typed. Then the page is read, once it has settled, for the
check."""

from dataclasses import dataclass

from nod_tasks.app.tools.base import StepContext
from nod_tasks.app.tools.browsing import LOST_SESSION, NEW_SESSION, session_of
from nod_tasks.domain import steps
from nod_tasks.domain.checks import Check
from nod_tasks.domain.outside import BINDING_REFUSALS, Claim, ClaimState, Entry
from nod_tasks.domain.pages import Page
from nod_tasks.domain.reasons import Reason
from nod_tasks.domain.steps import StepEnd
from nodkit.client import NodRpcError
from nodkit.logging import get_logger

log = get_logger("nod_tasks.entering")


@dataclass(frozen=True)
class EntryMade:
    claim: Claim
    # The page after the submit, as the browser read it once settled (masked);
    # an empty page when it could not be read (the check is then unclear).
    page: Page


async def enter(ctx: StepContext, entry: Entry) -> EntryMade | StepEnd:
    """SUBMITTED with the page after it, or how the step ends otherwise."""
    try:
        session_id = await session_of(ctx)
        claim: Claim | None = await ctx.peers.browser.enter_private(
            ctx.owner, session_id, entry, timeout_s=ctx.settings.entry_timeout_s
        )
    except NodRpcError as error:
        if error.reason == LOST_SESSION:
            ctx.session_id = await ctx.peers.browser.open_session(ctx.owner, ctx.task.id)
            return steps.failed(
                f"{NEW_SESSION}: nothing was typed; navigate to the page again",
                code=Reason.PAGE_GONE,
                nothing_typed=True,
            )
        if error.reason in BINDING_REFUSALS and not error.may_have_happened:
            # Not where the person chose the value for: never tried again as it is.
            return steps.not_run(f"nothing was typed: {error.message}", code=error.reason)
        if not error.may_have_happened:
            return steps.failed(
                f"nothing was typed: {error.message}",
                code=error.reason or Reason.STEP_FAILED,
                nothing_typed=True,
            )
        log.warning("entry.answer_lost", status=error.code.name, reason=error.reason)
        try:
            claim = await ctx.peers.claims.find_claim(ctx.owner, ctx.task.id, entry)
        except NodRpcError:
            return steps.uncertain("the entry's answer was lost and its claim could not be read")
    if claim is None:
        return steps.failed(
            "nothing was typed: the entry was never claimed",
            code=Reason.STEP_FAILED,
            nothing_typed=True,
        )
    if claim.state != ClaimState.SUBMITTED:
        why = f"the entry was interrupted ({claim.reason or 'no definite end'})"
        return steps.uncertain(why, claim_id=claim.id)
    return EntryMade(claim, await page_after(ctx))


async def page_after(ctx: StepContext) -> Page:
    """The page once it has settled: a read taken while the next page still
    loads shows nothing to judge by (only its title)."""
    try:
        return await ctx.peers.browser.read_page(ctx.owner, await session_of(ctx), settle=True)
    except NodRpcError:
        return Page()


async def record_check(ctx: StepContext, claim_id: str, check: Check) -> None:
    """Beside the claim's SUBMITTED state, never instead of it. A check that
    can't be recorded is still what the step tells the model."""
    try:
        await ctx.peers.claims.record_check(ctx.owner, claim_id, check)
    except NodRpcError as error:
        log.warning("entry.check_not_recorded", claim_id=claim_id, status=error.code.name)
