"""Tasks, steps, waits and events as proto messages, and the enums both ways."""

import json
from typing import Any

import sqlalchemy as sa

from nod.tasks.v1 import tasks_pb2 as pb
from nod_tasks.domain.steps import Resolution, StepRecord, StepState
from nod_tasks.domain.tasks import FormKind, TaskRecord, TaskState, Wait, WaitKind
from nodkit.enums import ProtoEnum
from nodkit.timestamps import to_proto

TASK_STATES = ProtoEnum(pb.TaskState, TaskState)
STEP_STATES = ProtoEnum(pb.StepState, StepState)
WAIT_KINDS = ProtoEnum(pb.WaitKind, WaitKind)
FORM_KINDS = ProtoEnum(pb.FormKind, FormKind)
RESOLUTIONS = ProtoEnum(pb.Resolution, Resolution)


def wait_to_pb(wait: Wait | None) -> pb.Wait | None:
    if wait is None:
        return None
    return pb.Wait(
        kind=WAIT_KINDS.proto(wait.kind),
        id=wait.id,
        prompt=wait.prompt,
        form_kind=FORM_KINDS.proto(wait.form_kind),
        origin=wait.origin,
        step=wait.step or 0,
    )


def task_to_pb(task: TaskRecord) -> pb.Task:
    return pb.Task(
        id=task.id,
        state=TASK_STATES.proto(task.state),
        text=task.text,
        message=task.message,
        wait=wait_to_pb(task.wait),
        run=task.run,
        steps=task.steps,
        created_at=to_proto(task.created_at),
        updated_at=to_proto(task.updated_at),
    )


def _json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False) if value is not None else ""


def _step(step: dict[str, Any], **times: Any) -> pb.Step:
    resolution = step.get("resolution")
    return pb.Step(
        **times,
        number=step["number"],
        tool=step["tool"],
        arguments=_json(step["arguments"]),
        state=STEP_STATES.proto(StepState(step["state"])),
        result=_json(step["result"]),
        reason=step["reason"],
        claim_id=step["claim_id"] or "",
        approval_id=step["approval_id"] or "",
        payment_id=step["payment_id"] or "",
        resolution=RESOLUTIONS.proto(Resolution(resolution) if resolution else None),
    )


def step_to_pb(step: StepRecord) -> pb.Step:
    return _step(
        step.to_json(), started_at=to_proto(step.started_at), ended_at=to_proto(step.ended_at)
    )


def event_to_pb(row: sa.Row) -> pb.TaskEvent:
    data = row.data or {}
    attempt = data.get("model_attempt")
    return pb.TaskEvent(
        number=row.number,
        task_id=str(row.task_id),
        at=to_proto(row.at),
        kind=row.kind,
        state=TASK_STATES.proto(TaskState(row.state)),
        step=_step(data["step"]) if data.get("step") else None,
        model_attempt=pb.ModelAttempt(**attempt) if attempt else None,
        wait=wait_to_pb(Wait.from_json(data.get("wait"))),
        message=data.get("message", ""),
    )
