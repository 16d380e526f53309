"""ask_person and finish."""

import uuid

from nod_tasks.app.tools.base import Arguments, Outcome, StepContext, WaitFor
from nod_tasks.domain import steps
from nod_tasks.domain.results import Claimed, Finished
from nod_tasks.domain.tasks import Wait, WaitKind

MAX_QUESTION = 1000
MAX_MESSAGE = 4000


async def ask_person(ctx: StepContext, args: Arguments) -> Outcome:
    question = str(args["question"]).strip()[:MAX_QUESTION]
    if not question:
        return steps.not_run("the question is empty")
    return WaitFor(Wait(WaitKind.ANSWER, str(uuid.uuid4()), prompt=question, step=ctx.step.number))


async def finish(ctx: StepContext, args: Arguments) -> Outcome:
    message = str(args.get("message", "")).strip()[:MAX_MESSAGE] or "Done."
    return steps.done(Finished(message, Claimed(args.get("outcome", Claimed.DONE))))
