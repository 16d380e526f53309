"""The single execution of an approved action (G7).

It runs as a task of its own, so a caller that gives up (a short deadline, a
closed tab) does not cut it off; the service shutting down does, and so does
its own deadline (NOD_APPROVALS_EXECUTION_DEADLINE_S, from the yes's commit):
then it ends UNCERTAIN once sending may have begun, NOT_RUN before. Whatever
happens, it is tried once: nothing here or anywhere else sends it again.
"""

import asyncio
import contextlib
import time
import uuid
from collections.abc import Awaitable, Callable, Iterator

from sqlalchemy.ext.asyncio import AsyncEngine

from nod_approvals.adapters.connectors import Connectors
from nod_approvals.app.accounts import Accounts
from nod_approvals.app.sending import Execution, Progress, send_once
from nod_approvals.domain.approvals import Outcome, instance, not_run, uncertain
from nod_approvals.store import executions as repo
from nodkit import context, faults
from nodkit.logging import get_logger

log = get_logger("nod_approvals.execution")


# Tests set it to act between "yes" and "send"; production passes None.
BeforeSend = Callable[[Execution], Awaitable[None]]


class Executor:
    def __init__(
        self,
        engine: AsyncEngine,
        accounts: Accounts,
        connectors: Connectors,
        *,
        instance_id: str,
        deadline_s: float,
        before_send: BeforeSend | None = None,
    ) -> None:
        self._engine = engine
        self._accounts = accounts
        self._connectors = connectors
        self.instance_id = instance_id
        self._deadline_s = deadline_s
        self._before_send = before_send
        self._in_flight: set[str] = set()
        self._tasks: dict[str, asyncio.Task] = {}
        # Executions this instance will never run or end (the record of their
        # start or end was lost), by when that was found.
        self._abandoned: dict[str, float] = {}

    @property
    def in_flight(self) -> list[str]:
        """Executions this instance is running (or about to): never orphans."""
        return sorted(self._in_flight)

    def abandon(self, execution_id: str) -> None:
        """Nothing here will touch it again: if its row is (or turns up)
        RUNNING, the sweeper can end it UNCERTAIN at once instead of waiting
        for it to be old enough to be an orphan."""
        self._abandoned[execution_id] = time.monotonic()

    def abandoned(self, younger_than_s: float) -> list[str]:
        """The abandoned executions; older ones are the orphan sweep's."""
        horizon = time.monotonic() - younger_than_s
        for execution_id, since in list(self._abandoned.items()):
            if since < horizon:
                del self._abandoned[execution_id]
        return sorted(self._abandoned)

    @contextlib.contextmanager
    def reserve(self) -> Iterator[str]:
        """An execution id, counted as in flight before its row can exist."""
        execution_id = str(uuid.uuid4())
        self._in_flight.add(execution_id)
        try:
            yield execution_id
        finally:
            if execution_id not in self._tasks:
                self._in_flight.discard(execution_id)

    async def run(self, execution: Execution) -> None:
        """Runs it to its end; a cancelled caller stops waiting, not the run."""
        task = context.run_detached(self._run(execution))
        self._tasks[execution.id] = task
        task.add_done_callback(lambda _: self._forget(execution.id))
        await asyncio.shield(task)

    def _forget(self, execution_id: str) -> None:
        self._tasks.pop(execution_id, None)
        self._in_flight.discard(execution_id)

    async def shutdown(self) -> None:
        tasks = list(self._tasks.values())
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    async def _run(self, execution: Execution) -> None:
        progress = Progress()
        deadline = asyncio.timeout(self._deadline_s)
        try:
            async with deadline:
                outcome = await self._attempt(execution, progress)
        except asyncio.CancelledError:
            await self._record(execution, _cut_off(progress, "the service shut down"))
            raise
        except Exception:
            if deadline.expired():
                log.warning("execution.overdue", execution_id=execution.id)
                outcome = _cut_off(progress, f"it took longer than {self._deadline_s:g} s")
            else:
                log.exception("execution.error", execution_id=execution.id)
                outcome = _cut_off(progress, "an internal error stopped it")
        await self._record(execution, outcome)

    async def _attempt(self, execution: Execution, progress: Progress) -> Outcome:
        await faults.point("approvals.decision_committed")
        if self._before_send is not None:
            await self._before_send(execution)
        return await send_once(
            self._engine, self._accounts, self._connectors, execution, self.instance_id, progress
        )

    async def _record(self, execution: Execution, outcome: Outcome) -> None:
        try:
            async with self._engine.begin() as conn:
                ended = await repo.finish(
                    conn,
                    execution.id,
                    self.instance_id,
                    outcome.state,
                    result=outcome.result,
                    reason=outcome.reason,
                    actor=instance(self.instance_id),
                )
        except Exception:
            # Still RUNNING in the database (or ended, if only the answer was
            # lost): the sweeper ends it UNCERTAIN at its next round.
            log.exception("execution.not_recorded", execution_id=execution.id)
            self.abandon(execution.id)
            return
        await faults.point("approvals.end_recorded")
        log.info(
            "execution.finished",
            execution_id=execution.id,
            approval_id=execution.approval.id,
            state=outcome.state.value if ended else "already_ended",
            reason=outcome.reason,
        )


def _cut_off(progress: Progress, why: str) -> Outcome:
    if progress.sending:
        return uncertain(f"{why} while sending")
    return not_run(f"{why} before sending")
