"""What a tool handler works with and returns, and the tool object that
pairs a tool's statement (domain.tools: schema, what a cut-off means,
whether it waits, what it acts on) with its handler."""

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from nod_tasks.adapters.peers import Peers
from nod_tasks.domain import tools
from nod_tasks.domain.model import TaskContext
from nod_tasks.domain.steps import StepEnd, StepRecord, operation_id
from nod_tasks.domain.tasks import TaskRecord, Wait
from nod_tasks.settings import TasksSettings

Arguments = tools.Arguments


@dataclass(frozen=True)
class WaitFor:
    """The step stays RUNNING and the task WAITING until the person (or an
    app action's execution) answers; the answer ends the step then."""

    wait: Wait
    # What the step made before it waits (a proposal's approval, a payment).
    approval_id: str = ""
    payment_id: str = ""


Outcome = StepEnd | WaitFor


@dataclass
class StepContext:
    task: TaskRecord
    step: StepRecord
    context: TaskContext
    earlier: list[StepRecord]
    peers: Peers
    settings: TasksSettings
    # The task's browser session: opened on first use, or again when the
    # one it had is gone (a Stop closed it, the browser service restarted).
    session_id: str | None = None
    # A private form the task opens itself once the step ends (a saved login
    # that didn't get through).
    then_wait: Wait | None = None

    @property
    def owner(self) -> str:
        return self.task.owner

    @property
    def operation_id(self) -> str:
        return operation_id(self.task.id, self.step.number)


Handler = Callable[[StepContext, Arguments], Awaitable[Outcome]]


@dataclass(frozen=True)
class Tool:
    spec: tools.Tool
    run: Handler

    @property
    def name(self) -> str:
        return self.spec.name
