"""What a tool handler works with, and what it may return."""

from dataclasses import dataclass, field
from typing import Any

from nod_tasks.adapters.peers import Peers
from nod_tasks.domain.model import TaskContext
from nod_tasks.domain.steps import StepEnd, StepRecord, operation_id
from nod_tasks.domain.tasks import TaskRecord, Wait
from nod_tasks.settings import TasksSettings


@dataclass(frozen=True)
class WaitFor:
    """The step stays RUNNING and the task WAITING until the person (or an
    app action's execution) answers; app/waits.py ends the step then."""

    wait: Wait
    made: dict[str, str] = field(default_factory=dict)


@dataclass
class StepContext:
    task: TaskRecord
    step: StepRecord
    context: TaskContext
    earlier: list[StepRecord]
    peers: Peers
    settings: TasksSettings
    # Set by a handler that opened a browser session for the task.
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


Outcome = StepEnd | WaitFor
Arguments = dict[str, Any]
