"""Statements that end many records at once (Stop, expiry, and executions
cut off by a restart or a dead instance). Each writes the history of every
record it ends in the same statement, so no record changes without its event,
even when two replicas sweep at the same time."""

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

EXPIRED_REASON = "nobody decided in time; nothing runs"


def _ending(subject: str, table: str, approval_id: str, moves: tuple[str, str], condition: str):
    from_state, to_state = moves  # constants of this module, never input
    stamp = "updated_at" if table == "approvals" else "finished_at"
    return sa.text(
        f"""
        WITH ended AS (
            UPDATE approvals.{table} r
               SET state = '{to_state}', reason = :reason, {stamp} = now()
             WHERE r.state = '{from_state}' AND {condition}
            RETURNING {approval_id} AS approval_id
        ), logged AS (
            INSERT INTO approvals.approval_events
                (approval_id, subject, actor, from_state, to_state, reason)
            SELECT approval_id, '{subject}', :actor, '{from_state}', '{to_state}', :reason
              FROM ended
        )
        SELECT approval_id FROM ended
        """
    )


def _end_pending(to_state: str, condition: str):
    return _ending("approval", "approvals", "r.id", ("pending", to_state), condition)


def _end_running(condition: str):
    return _ending("execution", "executions", "r.approval_id", ("running", "uncertain"), condition)


_CANCEL_FOR_TASK = _end_pending(
    "cancelled", "r.owner = :owner AND r.task_id = :task_id AND r.expires_at > now()"
)
_EXPIRE_ONE = _end_pending(
    "expired", "r.owner = :owner AND r.id = :approval_id AND r.expires_at <= now()"
)
_EXPIRE_DUE = _end_pending("expired", "r.expires_at <= now()")
# Those of this instance it is not running (any more), old enough that their
# row can't be a moment ahead of the in-flight list the caller read.
_END_OWN_RUNNING = _end_running(
    "r.instance_id = :instance_id AND NOT (r.id = ANY(CAST(:keep AS uuid[])))"
    " AND r.started_at <= now() - make_interval(secs => :min_age_s)"
)
_END_RUNNING_OF_DEAD_INSTANCES = _end_running(
    "r.instance_id NOT IN"
    " (SELECT instance_id FROM approvals.instance_leases WHERE lease_expires_at > now())"
)


async def _end(conn: AsyncConnection, statement, **params) -> list[str]:
    return [str(row.approval_id) for row in await conn.execute(statement, params)]


async def cancel_for_task(conn, owner: str, task_id: str, *, actor: str, reason: str):
    return await _end(
        conn, _CANCEL_FOR_TASK, owner=owner, task_id=task_id, actor=actor, reason=reason
    )


async def expire_if_due(conn, owner: str, approval_id: str, *, actor: str) -> list[str]:
    params = {"owner": owner, "approval_id": approval_id, "actor": actor}
    return await _end(conn, _EXPIRE_ONE, reason=EXPIRED_REASON, **params)


async def expire_all_due(conn, *, actor: str) -> list[str]:
    return await _end(conn, _EXPIRE_DUE, actor=actor, reason=EXPIRED_REASON)


async def end_own_running(
    conn, instance_id: str, *, keep: list[str], min_age_s: float, actor: str, reason: str
) -> list[str]:
    params = {"instance_id": instance_id, "keep": keep, "min_age_s": min_age_s}
    return await _end(conn, _END_OWN_RUNNING, actor=actor, reason=reason, **params)


async def end_running_of_dead_instances(conn, *, actor: str, reason: str) -> list[str]:
    return await _end(conn, _END_RUNNING_OF_DEAD_INSTANCES, actor=actor, reason=reason)
