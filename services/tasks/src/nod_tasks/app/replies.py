"""The person's answers to what a task waits for: a private form filled
(only the entry's id ever reaches this service), a question answered, an
uncertain step checked. Each moves the task on only if it still waits for
exactly that."""

from nod_tasks.adapters.peers import Peers
from nod_tasks.app.answers import answer_wait
from nod_tasks.domain import logins, steps
from nod_tasks.domain.results import Answered, FormFilled
from nod_tasks.domain.steps import Resolution
from nod_tasks.domain.tasks import (
    FilledForm,
    FormKind,
    TaskRecord,
    WaitKind,
    check_answer,
    check_resolution_step,
    refuse_unless_waiting_for,
)
from nod_tasks.store.database import Database
from nodkit import faults, validation
from nodkit.errors import FailedPrecondition


class Replies:
    def __init__(self, db: Database, peers: Peers) -> None:
        self._db = db
        self._peers = peers

    async def submit_form(self, task: TaskRecord, form_id: str, item_id: str) -> TaskRecord:
        wait = refuse_unless_waiting_for(task, WaitKind.PRIVATE_FORM, form_id)
        item_id = validation.uuid_id("item_id", item_id)
        picked = await self._picked_login(task, item_id)
        if picked and wait.form_kind not in (FormKind.LOGIN, FormKind.PASSWORD):
            raise FailedPrecondition(
                "this form asks for a value, not a saved login", reason="WRONG_ITEM"
            )
        kind = wait.form_kind or FormKind.PASSWORD
        how = "picked a saved login" if picked else "typed it"
        said = None
        if not wait.step:  # a form the task opened itself (a saved login didn't get through)
            said = (
                f"The person filled private form {form_id} ({kind.value}): they {how}."
                f" Use enter_from_private_form with form_id {form_id}."
            )
        async with self._db.transaction() as tx:
            moved = await answer_wait(
                tx,
                task,
                wait,
                actor=task.owner,
                step_end=steps.done(FormFilled(form_id, kind.value, how)),
                said=said,
                note=f"private form {kind.value} filled",
                add_form=(form_id, FilledForm(kind, item_id, picked)),
            )
        await faults.point("tasks.form_accepted")
        return _answered(moved)

    async def _picked_login(self, task: TaskRecord, item_id: str) -> bool:
        """Whether the person picked one of their saved logins (else the id is
        a value they typed, checked by the claims service when it is used)."""
        if item_id not in await self._peers.claims.saved_login_ids(task.owner):
            return False
        async with self._db.reads() as tx:
            earlier = await tx.steps.of_task(task.id)
        if item_id in logins.refused_logins(earlier):
            raise FailedPrecondition(
                "that saved login did not get through earlier in this task; type the password",
                reason="LOGIN_REFUSED",
            )
        return True

    async def answer(self, task: TaskRecord, question_id: str, text: str) -> TaskRecord:
        text = check_answer(text)
        wait = refuse_unless_waiting_for(task, WaitKind.ANSWER, question_id)
        async with self._db.transaction() as tx:
            moved = await answer_wait(
                tx,
                task,
                wait,
                actor=task.owner,
                step_end=steps.done(Answered(text)),
                note=text,
                person_words=text,
            )
        return _answered(moved)

    async def resolve(
        self, task: TaskRecord, step: int, resolution: Resolution, note: str
    ) -> TaskRecord:
        """What the person found, recorded beside the UNCERTAIN state (which
        stays); the task goes on from it. A new attempt is the model's new step."""
        note = validation.text("note", note, max_length=1000).strip()
        wait = check_resolution_step(task, step)
        found = "it happened" if resolution == Resolution.HAPPENED else "it did not happen"
        said = f"The person checked step {step}: {found}." + (f" {note}" if note else "")
        async with self._db.transaction() as tx:
            moved = await answer_wait(
                tx, task, wait, actor=task.owner, said=said, note=said, person_words=note
            )
            if moved is not None:
                await tx.steps.resolve(task.id, step, resolution)
        return _answered(moved)


def _answered(moved: TaskRecord | None) -> TaskRecord:
    if moved is None:
        raise FailedPrecondition(
            "the task no longer waits for that (answered already, or stopped)",
            reason="NOT_WAITING",
        )
    return moved
