"""Boot reconcile and the sweeper (G12).

An execution belongs to the instance running it. On boot an instance was cut
off from whatever it was sending, so all its RUNNING executions end
UNCERTAIN; nothing is sent again. The sweeper ends RUNNING executions of
instances whose lease lapsed (never a live one's), this instance's own
executions whose outcome could not be recorded (at once when this instance
knows it lost their record, else once they are old enough), and pending
approvals that ran out of time.
"""

from sqlalchemy.ext.asyncio import AsyncEngine

from nod_approvals.app.executor import Executor
from nod_approvals.domain.approvals import uncertain
from nod_approvals.store import approvals as approvals_repo
from nod_approvals.store import executions as executions_repo
from nodkit.logging import get_logger
from nodkit.metrics import count_sweep

log = get_logger("nod_approvals.recovery")

RESTARTED = uncertain("the service restarted while sending it").reason
OWNER_GONE = uncertain("the instance sending it stopped renewing its lease").reason
NOT_RECORDED = uncertain("its outcome could not be recorded").reason
LOST_RECORD = uncertain("the record of its start or end was lost").reason
# An execution row can commit a moment after the sweeper read what is in
# flight; anything younger than this is left for the next sweep.
ORPHAN_MIN_AGE_S = 60.0


async def reconcile_own(engine: AsyncEngine, instance_id: str) -> list[str]:
    async with engine.begin() as conn:
        ended = await executions_repo.end_own_running(
            conn, instance_id, keep=[], min_age_s=0, actor=f"boot:{instance_id}", reason=RESTARTED
        )
    count_sweep("approvals", "boot", len(ended))
    if ended:
        log.warning("boot.uncertain_executions", approval_ids=ended)
    return ended


async def sweep_once(engine: AsyncEngine, executor: Executor) -> list[str]:
    actor = f"sweeper:{executor.instance_id}"
    async with engine.begin() as conn:
        dead = await executions_repo.end_running_of_lapsed_instances(
            conn, actor=actor, reason=OWNER_GONE
        )
        orphans = await executions_repo.end_own_running(
            conn,
            executor.instance_id,
            keep=executor.in_flight,
            min_age_s=ORPHAN_MIN_AGE_S,
            actor=actor,
            reason=NOT_RECORDED,
        )
        abandoned = await executions_repo.end_own_abandoned(
            conn,
            executor.instance_id,
            executor.abandoned(younger_than_s=ORPHAN_MIN_AGE_S),
            actor=actor,
            reason=LOST_RECORD,
        )
        expired = await approvals_repo.expire_all_due(conn, actor=actor)
    changed = [*dead, *orphans, *abandoned, *expired]
    count_sweep("approvals", "sweep", len(changed))
    if dead or orphans or abandoned:
        log.warning("sweep.uncertain_executions", approval_ids=[*dead, *orphans, *abandoned])
    return changed
