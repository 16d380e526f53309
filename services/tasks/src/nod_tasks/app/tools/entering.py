"""One private entry through the browser service (G1-G4): EnterPrivate under
the step's operation id; when its answer is lost, the claim is looked up
(FindClaim) instead of asking again — the claim is the truth of whether
anything was typed. Then the page is read for the check."""

from dataclasses import dataclass
from typing import Any

from nod.browser.v1 import browser_pb2 as browser
from nod.claims.v1 import claims_pb2 as claims
from nod_tasks.app.tools.base import StepContext
from nod_tasks.app.tools.browsing import page_dict, session_of
from nod_tasks.domain import steps
from nod_tasks.domain.checks import Check
from nod_tasks.domain.pages import for_model
from nod_tasks.domain.steps import StepEnd, StepState
from nodkit.client import NodRpcError
from nodkit.logging import get_logger

log = get_logger("nod_tasks.entering")
CHECKS = {
    Check.WORKED: claims.CHECK_RESULT_WORKED,
    Check.DID_NOT_WORK: claims.CHECK_RESULT_DID_NOT_WORK,
    Check.UNCLEAR: claims.CHECK_RESULT_UNCLEAR,
}


@dataclass(frozen=True)
class Entry:
    kind: int  # claims_pb2.EntryKind
    item_id: str
    fields: dict[str, str]
    submit: str
    operation_id: str
    companion_entry_id: str = ""


@dataclass(frozen=True)
class Submitted:
    claim: claims.Claim
    # The page after the submit, as the browser read it (masked), if it could.
    page: dict[str, Any]


async def enter(ctx: StepContext, entry: Entry) -> Submitted | StepEnd:
    """SUBMITTED with the page after it, or how the step ends otherwise."""
    try:
        session_id = await session_of(ctx)
        request = browser.EnterPrivateRequest(
            session_id=session_id,
            operation_id=entry.operation_id,
            kind=entry.kind,  # type: ignore[arg-type]
            item_id=entry.item_id,
            fields=entry.fields,
            submit=entry.submit,
            companion_entry_id=entry.companion_entry_id,
        )
        reply = await ctx.peers.browser.call(
            ctx.peers.browser_stub.EnterPrivate,
            request,
            ctx.owner,
            timeout_s=ctx.settings.entry_timeout_s,
        )
        claim: claims.Claim | None = reply.claim
    except NodRpcError as error:
        if not error.may_have_happened:
            return steps.failed(f"nothing was typed: {error.message}", entered=False)
        log.warning("entry.answer_lost", status=error.code.name, reason=error.reason)
        try:
            claim = await find_claim(ctx, entry)
        except NodRpcError:
            return steps.uncertain("the entry's answer was lost and its claim could not be read")
    if claim is None:
        return steps.failed("nothing was typed: the entry was never claimed", entered=False)
    if claim.state != claims.CLAIM_STATE_SUBMITTED:
        return steps.uncertain(
            f"the entry was interrupted ({claim.reason or 'no definite end'})",
            claim_id=claim.id,
        )
    return Submitted(claim, await page_after(ctx))


async def find_claim(ctx: StepContext, entry: Entry) -> claims.Claim | None:
    request = claims.FindClaimRequest(
        operation_id=entry.operation_id,
        kind=entry.kind,  # type: ignore[arg-type]
        item_id=entry.item_id,
        task_id=ctx.task.id,
        companion_entry_id=entry.companion_entry_id,
    )
    reply = await ctx.peers.claims.call(ctx.peers.claims_stub.FindClaim, request, ctx.owner)
    return reply.claim if reply.found else None


async def page_after(ctx: StepContext) -> dict[str, Any]:
    try:
        session_id = await session_of(ctx)
        reply = await ctx.peers.browser.call(
            ctx.peers.browser_stub.ReadPage,
            browser.ReadPageRequest(session_id=session_id),
            ctx.owner,
        )
    except NodRpcError:
        return {}  # the check is then unclear
    return page_dict(reply.page)


async def record_check(ctx: StepContext, claim_id: str, check: Check) -> None:
    """Beside the claim's SUBMITTED state, never instead of it. A check that
    can't be recorded is still what the step tells the model."""
    try:
        await ctx.peers.claims.call(
            ctx.peers.claims_stub.RecordCheck,
            claims.RecordCheckRequest(claim_id=claim_id, check=CHECKS[check]),
            ctx.owner,
        )
    except NodRpcError as error:
        log.warning("entry.check_not_recorded", claim_id=claim_id, status=error.code.name)


def submitted(done: Submitted, check: Check, **result: Any) -> StepEnd:
    return StepEnd(
        StepState.DONE,
        {
            "outcome": "submitted",
            "entered": True,
            "check": check.value,
            "claim_id": done.claim.id,
            **result,
            "page": for_model(done.page),
        },
        claim_id=done.claim.id,
    )
