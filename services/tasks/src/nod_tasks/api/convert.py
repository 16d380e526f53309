"""Tasks, steps, waits and events as proto messages, and the enums both ways."""

import json
from typing import Any

from nod.tasks.v1 import tasks_pb2 as pb
from nod_tasks.domain.checks import Check
from nod_tasks.domain.events import StepView, TaskEvent
from nod_tasks.domain.looks import Finding, StepLook
from nod_tasks.domain.pages import origin_of
from nod_tasks.domain.reasons import Reason
from nod_tasks.domain.steps import Resolution, StepState
from nod_tasks.domain.tasks import FormKind, Outcome, TaskRecord, TaskState, Wait, WaitKind
from nodkit.enums import ProtoEnum
from nodkit.timestamps import to_proto

TASK_STATES = ProtoEnum(pb.TaskState, TaskState)
STEP_STATES = ProtoEnum(pb.StepState, StepState)
WAIT_KINDS = ProtoEnum(pb.WaitKind, WaitKind)
FORM_KINDS = ProtoEnum(pb.FormKind, FormKind)
RESOLUTIONS = ProtoEnum(pb.Resolution, Resolution)
OUTCOMES = ProtoEnum(pb.TaskOutcome, Outcome)
ENTRY_CHECKS = {
    Check.WORKED.value: pb.ENTRY_CHECK_WORKED,
    Check.DID_NOT_WORK.value: pb.ENTRY_CHECK_DID_NOT_WORK,
    Check.UNCLEAR.value: pb.ENTRY_CHECK_UNCLEAR,
}
PAID = {
    "paid": pb.PAID_OUTCOME_PAID,
    "declined": pb.PAID_OUTCOME_DECLINED,
    "unknown": pb.PAID_OUTCOME_UNKNOWN,
    "not_yet": pb.PAID_OUTCOME_NOT_YET,
}
# A step that failed or was not run, with no more precise code recorded
# (one of an earlier version, or a refusal with none of its own).
LOOK_FINDINGS = ProtoEnum(pb.LookFinding, Finding)
FALLBACK_CODES = {StepState.NOT_RUN: Reason.STEP_REFUSED, StepState.FAILED: Reason.STEP_FAILED}


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
        frame_origin=wait.frame_origin,
    )


def task_to_pb(task: TaskRecord) -> pb.Task:
    judged = task.outcome
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
        outcome=OUTCOMES.proto(judged.outcome) if judged else pb.TASK_OUTCOME_UNSPECIFIED,
        outcome_reason=judged.reason if judged else "",
        outcome_step=judged.step if judged else 0,
    )


def _json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False) if value is not None else ""


def step_to_pb(step: StepView) -> pb.Step:
    return pb.Step(
        number=step.number,
        tool=step.tool,
        arguments=_json(step.arguments),
        state=STEP_STATES.proto(step.state),
        result=_json(step.result),
        reason=step.reason,
        claim_id=step.claim_id or "",
        approval_id=step.approval_id or "",
        payment_id=step.payment_id or "",
        resolution=RESOLUTIONS.proto(step.resolution),
        started_at=to_proto(step.started_at),
        ended_at=to_proto(step.ended_at),
        look=look_to_pb(step.look),
        **_facts(step),
    )


def look_to_pb(found: StepLook | None) -> pb.Look | None:
    if found is None:
        return None
    return pb.Look(
        step=found.step,
        finding=LOOK_FINDINGS.proto(found.finding),
        sentence=found.sentence,
        url=found.url,
        looked_at=to_proto(found.looked_at),
        has_image=found.has_image,
    )


def _facts(step: StepView) -> dict[str, Any]:
    """What a reader words of a step, from its typed record and the view
    its result gave the model (check, paid and page are in that view)."""
    view = step.result or {}
    shown = view.get("page")
    page: dict[str, Any] = shown if isinstance(shown, dict) else {}
    code = step.code or FALLBACK_CODES.get(step.state, "")
    return {
        "reason_code": code,
        "check": ENTRY_CHECKS.get(str(view.get("check", "")), pb.ENTRY_CHECK_UNSPECIFIED),
        "paid": PAID.get(str(view.get("paid", "")), pb.PAID_OUTCOME_UNSPECIFIED),
        "page_origin": origin_of(str(page.get("url", ""))),
        "page_title": str(page.get("title", "")),
        "form_kind": FORM_KINDS.proto(FormKind(step.form_kind)) if step.form_kind else 0,
    }


def event_to_pb(event: TaskEvent) -> pb.TaskEvent:
    attempt = event.attempt
    return pb.TaskEvent(
        number=event.number,
        task_id=event.task_id,
        at=to_proto(event.at),
        kind=event.kind,
        state=TASK_STATES.proto(event.state),
        step=step_to_pb(event.step) if event.step else None,
        model_attempt=pb.ModelAttempt(
            request=attempt.request,
            attempt=attempt.attempt,
            status=attempt.status,
            error=attempt.error,
            wait_s=attempt.wait_s,
            retried=attempt.retried,
        )
        if attempt
        else None,
        wait=wait_to_pb(event.wait),
        message=event.message,
        person_words=event.person_words,
    )
