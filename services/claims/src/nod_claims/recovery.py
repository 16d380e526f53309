"""Boot reconcile and the sweeper (G12).

A claim is owned by the runner that holds it, not by this service: a restart
of the claims service alone touches nothing whose holder is alive. Both the
boot reconcile and the periodic sweep end only the RUNNING claims of holders
whose lease has expired, and claims RUNNING longer than max_running_s
(whatever the holder: their end was lost), and destroy private entries
nobody claimed in time.
"""

from sqlalchemy.ext.asyncio import AsyncEngine

from nod_claims.store import claims as repo
from nod_claims.store import vault as vault_repo
from nodkit.logging import get_logger
from nodkit.metrics import count_sweep

log = get_logger("nod_claims.recovery")


async def sweep_once(
    engine: AsyncEngine, instance_id: str, max_running_s: float, *, kind: str = "sweep"
) -> int:
    actor = f"sweeper:{instance_id}"
    async with engine.begin() as conn:
        swept = await repo.sweep_expired_leases(conn, actor=actor)
        overdue = await repo.end_overdue(conn, max_running_s, actor=actor)
        expired_entries = await vault_repo.discard_expired_entries(conn)
    count_sweep("claims", kind, len(swept) + len(overdue) + expired_entries)
    if swept or overdue or expired_entries:
        log.warning(
            "sweep.done",
            uncertain_claims=len(swept),
            overdue_claims=len(overdue),
            expired_private_entries=expired_entries,
        )
    return len(swept) + len(overdue)
