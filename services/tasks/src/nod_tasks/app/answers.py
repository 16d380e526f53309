"""A wait answered: the task leaves WAITING (a conditional move on exactly
what it waits for, so of two answers only one counts and a stopped task
takes none), its waiting step ends with the answer, and the model is told.
An answer that may have happened (an app action's execution UNCERTAIN)
makes the task wait for the person's check instead."""

from nod_tasks.domain import prompt
from nod_tasks.domain.steps import StepEnd, StepState
from nod_tasks.domain.tasks import FilledForm, Move, TaskRecord, Wait, check_wait
from nod_tasks.store.database import Transaction
from nod_tasks.store.tasks import Which


async def answer_wait(
    tx: Transaction,
    task: TaskRecord,
    wait: Wait,
    *,
    actor: str,
    step_end: StepEnd | None = None,
    said: str | None = None,
    note: str | None = None,
    person_words: str = "",
    add_form: tuple[str, FilledForm] | None = None,
) -> TaskRecord | None:
    """None if the task no longer waits for this (answered already, stopped)."""
    next_wait = None
    if step_end is not None and step_end.state == StepState.UNCERTAIN and wait.step:
        next_wait = check_wait(wait.step, step_end.reason)
    moved = await tx.tasks.move(
        Move.ASK_TO_CHECK if next_wait else Move.ANSWER,
        Which(task_id=task.id, waiting_for=wait),
        actor=actor,
        note=None if next_wait else note,
        person_words=person_words,
        wait=next_wait,
        add_form=add_form,
    )
    if not moved:
        return None
    if step_end is not None and wait.step:
        step = await tx.steps.get(task.id, wait.step)
        if step is not None:
            await tx.steps.end(step, step_end)
    if said:
        await tx.say(task.id, prompt.Said(said))
    return moved[0]
