"""propose_app_action: the saved action waits for the person's yes; then
the approvals service runs it once (G7), and the step ends with its outcome
(app/waits.py)."""

from nod_tasks.app.tools.base import Arguments, Outcome, StepContext, WaitFor
from nod_tasks.domain import steps
from nod_tasks.domain.outside import Proposal
from nod_tasks.domain.reasons import Reason
from nod_tasks.domain.tasks import Wait, WaitKind
from nodkit.client import NodRpcError


async def propose_app_action(ctx: StepContext, args: Arguments) -> Outcome:
    proposal = Proposal(
        task_id=ctx.task.id,
        account_id=str(args["account_id"]),
        action=str(args["action"]),
        parameters=dict(args["parameters"]),
        summary=str(args["summary"]),
        # From (task, step): a replayed step can't propose twice.
        request_id=ctx.operation_id,
    )
    try:
        approval = await ctx.peers.approvals.propose(ctx.owner, proposal)
    except NodRpcError as error:
        if error.may_have_happened:
            return steps.uncertain(f"the proposal's answer was lost ({error.code.name})")
        return steps.failed(
            f"the action was not proposed: {error.message}",
            code=error.reason or Reason.STEP_FAILED,
        )
    wait = Wait(WaitKind.DECISION, approval.id, prompt=approval.summary, step=ctx.step.number)
    return WaitFor(wait, approval_id=approval.id)
