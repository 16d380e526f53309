"""Boot reconcile and the sweeper (G12).

A RUNNING payment is owned by the instance that started its card entry.
On boot, an instance ends its own RUNNING payments as UNCERTAIN: the entry
was cut off and may have reached the merchant. The sweeper does the same for
instances whose lease expired (dead replicas), never for a live one, and
expires payments nobody said yes to in time. And no payment stays RUNNING
past max_running_s, whoever entered its card: a caller that was cut off and
never came back can't leave it RUNNING for good.
"""

from sqlalchemy.ext.asyncio import AsyncEngine

from nod_payments.store import transitions
from nodkit.logging import get_logger
from nodkit.metrics import count_sweep

log = get_logger("nod_payments.recovery")

RESTARTED = "payments service restarted during the card entry"
LEASE_EXPIRED = "the payments instance running the card entry stopped renewing its lease"
TOO_LONG = "the card entry had no definite end in time"


async def release_own_running(engine: AsyncEngine, instance_id: str) -> int:
    async with engine.begin() as conn:
        ended = await transitions.end_running(
            conn, transitions.run_by(instance_id), actor=f"boot:{instance_id}", reason=RESTARTED
        )
    count_sweep("payments", "boot", len(ended))
    if ended:
        log.warning("boot.uncertain_payments", payments=[p.id for p in ended])
    return len(ended)


async def sweep_once(engine: AsyncEngine, instance_id: str, max_running_s: float) -> int:
    actor = f"sweeper:{instance_id}"
    async with engine.begin() as conn:
        ended = await transitions.end_running(
            conn, transitions.run_by_dead_instances(), actor=actor, reason=LEASE_EXPIRED
        )
        ended += await transitions.end_running(
            conn,
            transitions.running_longer_than(max_running_s),
            actor=actor,
            reason=TOO_LONG,
        )
        expired = await transitions.expire_overdue(conn, actor=actor)
    count_sweep("payments", "sweep", len(ended) + len(expired))
    if ended or expired:
        log.warning(
            "sweep.done",
            uncertain_payments=[p.id for p in ended],
            expired_payments=[p.id for p in expired],
        )
    return len(ended) + len(expired)
