"""Rows and JSON columns as domain records, and back: the one place the
tasks schema's stored shapes are read and written."""

from datetime import datetime
from typing import Any

from nod_tasks.domain import results
from nod_tasks.domain.events import ModelAttempt, StepView, TaskEvent
from nod_tasks.domain.looks import Finding, StepLook
from nod_tasks.domain.outcomes import StepFact
from nod_tasks.domain.steps import Resolution, StepRecord, StepState, Subject
from nod_tasks.domain.tasks import FilledForm, FormKind, TaskRecord, TaskState, Wait, WaitKind

Json = dict[str, Any]


def wait_to_json(wait: Wait | None) -> Json | None:
    if wait is None:
        return None
    return {
        "kind": wait.kind.value,
        "id": wait.id,
        "prompt": wait.prompt,
        "form_kind": wait.form_kind.value if wait.form_kind else None,
        "origin": wait.origin,
        "step": wait.step,
        "frame_origin": wait.frame_origin,
    }


def wait_from_json(data: Json | None) -> Wait | None:
    if not data:
        return None
    return Wait(
        kind=WaitKind(data["kind"]),
        id=data["id"],
        prompt=data["prompt"],
        form_kind=FormKind(data["form_kind"]) if data.get("form_kind") else None,
        origin=data.get("origin", ""),
        step=data.get("step"),
        frame_origin=data.get("frame_origin", ""),
    )


def form_to_json(form: FilledForm) -> Json:
    return {"kind": form.kind.value, "item_id": form.item_id, "picked": form.picked_login}


def form_from_json(data: Json) -> FilledForm:
    return FilledForm(FormKind(data["kind"]), data["item_id"], bool(data.get("picked")))


def to_task(row: Any) -> TaskRecord:
    return TaskRecord(
        id=str(row.id),
        owner=row.owner,
        text=row.text,
        state=TaskState(row.state),
        message=row.message,
        wait=wait_from_json(row.wait),
        run=row.run,
        steps=row.steps,
        session_id=row.session_id,
        runner_instance=row.runner_instance,
        forms={form_id: form_from_json(f) for form_id, f in (row.forms or {}).items()},
        created_at=row.created_at,
        updated_at=row.updated_at,
        traceparent=row.traceparent,
    )


def to_step(row: Any) -> StepRecord:
    return StepRecord(
        task_id=str(row.task_id),
        number=row.number,
        call_id=row.call_id,
        tool=row.tool,
        arguments=row.arguments,
        state=StepState(row.state),
        result=results.from_json(row.result),
        reason=row.reason,
        subject=Subject(login_id=row.login_id, form_id=row.form_id, payment_id=row.payment_id),
        runner_instance=row.runner_instance,
        claim_id=row.claim_id,
        approval_id=row.approval_id,
        resolution=Resolution(row.resolution) if row.resolution else None,
        started_at=row.started_at,
        ended_at=row.ended_at,
    )


# The keys of a step's stored result (results.to_json) its fact reads.
FACT_KEYS = ("type", "check", "paid", "code", "claimed", "form_kind")


def to_fact(row: Any) -> StepFact:
    return StepFact(
        number=row.number,
        tool=row.tool,
        state=StepState(row.state),
        resolution=Resolution(row.resolution) if row.resolution else None,
        result=row.type or "",
        check=row.check or "",
        paid=row.paid or "",
        code=row.code or "",
        claimed=row.claimed or "",
        form_kind=row.form_kind or "",
    )


def step_view_to_json(view: StepView) -> Json:
    """A step as its events carry it."""
    return {
        "number": view.number,
        "tool": view.tool,
        "arguments": view.arguments,
        "state": view.state.value,
        "result": view.result,
        "reason": view.reason,
        "claim_id": view.claim_id,
        "approval_id": view.approval_id,
        "payment_id": view.payment_id,
        "resolution": view.resolution.value if view.resolution else None,
        "code": view.code,
        "form_kind": view.form_kind,
        "look": look_to_json(view.look) if view.look else None,
    }


def look_to_json(found: StepLook) -> Json:
    return {
        "step": found.step,
        "finding": found.finding.value,
        "sentence": found.sentence,
        "url": found.url,
        "looked_at": found.looked_at.isoformat(),
        "has_image": found.has_image,
    }


def look_from_json(data: Json) -> StepLook:
    return StepLook(
        step=data["step"],
        finding=Finding(data["finding"]),
        sentence=data["sentence"],
        url=data["url"],
        looked_at=datetime.fromisoformat(data["looked_at"]),
        has_image=data.get("has_image", False),
    )


def step_view_from_json(data: Json) -> StepView:
    resolution = data.get("resolution")
    return StepView(
        number=data["number"],
        tool=data["tool"],
        arguments=data["arguments"],
        state=StepState(data["state"]),
        result=data.get("result"),
        reason=data.get("reason", ""),
        claim_id=data.get("claim_id"),
        approval_id=data.get("approval_id"),
        payment_id=data.get("payment_id"),
        resolution=Resolution(resolution) if resolution else None,
        code=data.get("code", ""),
        form_kind=data.get("form_kind", ""),
        look=look_from_json(data["look"]) if data.get("look") else None,
    )


def attempt_to_json(attempt: ModelAttempt) -> Json:
    return {
        "request": attempt.request,
        "attempt": attempt.attempt,
        "status": attempt.status,
        "error": attempt.error,
        "wait_s": attempt.wait_s,
        "retried": attempt.retried,
    }


# How events written before person_words held the person's words: in their
# message, beside this service's own notes of a form filled or a check.
_FORM_FILLED = ("private form ", " filled")
_CHECKED = "The person checked step "
_CHECKED_FOUND = (": it happened.", ": it did not happen.")


def _person_words(kind: str, data: Json) -> str:
    """The person's own words in an event. An event written before the field
    was has them in its message, unless the message is a note of ours."""
    if "person_words" in data:
        return str(data["person_words"])
    text = str(data.get("message", "")).strip() if kind == "task.queued" else ""
    if text.startswith(_FORM_FILLED[0]) and text.endswith(_FORM_FILLED[1]):
        return ""
    if text.startswith(_CHECKED):
        for found in _CHECKED_FOUND:
            if found in text:
                return text.split(found, 1)[1].strip()
    return text


def to_event(row: Any) -> TaskEvent:
    data = row.data or {}
    attempt = data.get("model_attempt")
    return TaskEvent(
        task_id=str(row.task_id),
        number=row.number,
        at=row.at,
        kind=row.kind,
        state=TaskState(row.state),
        message=data.get("message", ""),
        person_words=_person_words(row.kind, data),
        wait=wait_from_json(data.get("wait")),
        step=step_view_from_json(data["step"]) if data.get("step") else None,
        attempt=ModelAttempt(**attempt) if attempt else None,
    )
