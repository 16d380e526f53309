"""The single execution of an approved action (G7).

It runs as a task of its own, so a caller that gives up (a short deadline, a
closed tab) does not cut it off; only the service shutting down does, and
then it ends UNCERTAIN. Whatever happens, it is tried once: nothing here or
anywhere else sends it again.
"""

import asyncio
import contextlib
import uuid
from collections.abc import Awaitable, Callable, Iterator

from sqlalchemy.ext.asyncio import AsyncEngine

from nod_approvals.adapters.connectors import Connectors
from nod_approvals.app.accounts import Accounts
from nod_approvals.app.sending import Execution, Progress, send_once
from nod_approvals.domain.approvals import Outcome, instance, not_run, uncertain
from nod_approvals.store import executions as repo
from nodkit import context
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
        before_send: BeforeSend | None = None,
    ) -> None:
        self._engine = engine
        self._accounts = accounts
        self._connectors = connectors
        self.instance_id = instance_id
        self._before_send = before_send
        self._in_flight: set[str] = set()
        self._tasks: dict[str, asyncio.Task] = {}

    @property
    def in_flight(self) -> list[str]:
        """Executions this instance is running (or about to): never orphans."""
        return sorted(self._in_flight)

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
        try:
            outcome = await self._attempt(execution, progress)
        except asyncio.CancelledError:
            await self._record(execution, _cut_off(progress, "the service shut down"))
            raise
        except Exception:
            log.exception("execution.error", execution_id=execution.id)
            outcome = _cut_off(progress, "an internal error stopped it")
        await self._record(execution, outcome)

    async def _attempt(self, execution: Execution, progress: Progress) -> Outcome:
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
            # Still RUNNING in the database: the sweeper ends it UNCERTAIN.
            log.exception("execution.not_recorded", execution_id=execution.id)
            return
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
