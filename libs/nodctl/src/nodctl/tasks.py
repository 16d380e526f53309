"""nodctl task and nodctl resolve: a task's whole history as the task page
shows it (the gateway's own timeline code builds the lines), and recording
what a person found about an UNCERTAIN step, as the page's "I checked"
buttons do (the gateway's own request)."""

from dataclasses import asdict

from nod.tasks.v1 import tasks_pb2 as tasks
from nod_gateway import timeline
from nod_gateway.resolutions import resolution_request
from nod_gateway.web import words
from nodctl.output import emit_json, say
from nodctl.parts import Parts


def _state(task: tasks.Task) -> str:
    """The task's badge as its page shows it (its outcome once it ended),
    with the sentence why."""
    badge = words.task_badge(task)[0]
    why = words.outcome_sentence(task)
    return f"{badge} ({why})" if why else badge


def _describe(line: timeline.Line) -> list[str]:
    badges = [line.badge, *line.more_badges] if line.badge else line.more_badges
    head = f"{line.number:>4}  {line.at}  {line.title}"
    if badges:
        head += "  [" + "] [".join(words_ for words_, _ in badges) + "]"
    text = [head]
    text += [f"{'':>6}{part}" for part in (line.detail, *line.extra, line.explanation) if part]
    return text


async def show(parts: Parts, task_id: str, person: str | None, *, as_json: bool) -> int:
    owner = await parts.owner_of(task_id, person)
    nod = parts.as_person(owner)
    # The lines first, then the task, as the page reads them (routes/task.py).
    lines = await timeline.history(nod, task_id)
    task = (await nod.tasks.GetTask(tasks.GetTaskRequest(task_id=task_id))).task
    if as_json:
        emit_json(
            {
                "task": task.id,
                "person": owner.name,
                "state": _state(task),
                "text": task.text,
                "waiting_for": task.wait.prompt,
                "lines": [asdict(line) for line in lines],
            }
        )
        return 0
    say(f"Task {task.id} ({owner.name}): {task.text}")
    say(f"State: {_state(task)}")
    if task.wait.prompt:
        say(f"Waiting for: {task.wait.prompt}")
    say("")
    for line in lines:
        for text in _describe(line):
            say(text)
    if not lines:
        say("Nothing has happened yet.")
    return 0


async def resolve(
    parts: Parts, task_id: str, step: int, found: str, note: str, person: str | None,
    *, as_json: bool,
) -> int:  # fmt: skip
    owner = await parts.owner_of(task_id, person)
    nod = parts.as_person(owner)
    reply = await nod.tasks.ResolveUncertain(resolution_request(task_id, step, found, note))
    state = _state(reply.task)
    if as_json:
        emit_json(
            {"task": task_id, "person": owner.name, "step": step, "found": found, "state": state}
        )
    else:
        said = found.replace("_", " ")
        say(f"Recorded for {owner.name}'s task {task_id}, step {step}: {said}.")
        say(f"The task is now: {state}.")
    return 0
