"""A state change and its history row, always together.

Every record that moves through states (a claim, an approval and its
execution, a payment) has a history table of the same shape. move() is one
statement: a conditional UPDATE (`WHERE state = <from>`) whose returned rows
say what moved (none when another change won the race), with the INSERT of
their history rows in the same statement, so nothing changes without its
event, even when two replicas sweep at once.

A move to UNCERTAIN counts in nod_uncertain_total (nodkit.metrics) once its
transaction commits: a rolled-back move ended nothing.
"""

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import sqlalchemy as sa
from sqlalchemy import event
from sqlalchemy.dialects.postgresql import UUID
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.ext.asyncio import AsyncConnection

from nodkit.metrics import count_uncertain

NOW = sa.text("now()")
UNCERTAIN = "uncertain"
# Moves to UNCERTAIN in the connection's open transaction, by table.
_PENDING_UNCERTAIN = "nod.pending_uncertain"


@event.listens_for(Engine, "commit")
def _count_committed_uncertain(conn: Connection) -> None:
    for record, count in conn.info.pop(_PENDING_UNCERTAIN, Counter()).items():
        count_uncertain(record, count)


@event.listens_for(Engine, "rollback")
def _forget_rolled_back_uncertain(conn: Connection) -> None:
    # A connection the database dropped is invalidated before this rollback,
    # and its info went with it: reading conn.info then would raise
    # PendingRollbackError in place of the real error (an INTERNAL for
    # what is a database that is down).
    if not conn.invalidated:
        conn.info.pop(_PENDING_UNCERTAIN, None)


def history_table(
    metadata: sa.MetaData, name: str, record: sa.Column, key: str, *extra: sa.schema.SchemaItem
) -> sa.Table:
    """`<name>(id, <key> -> record, *extra, at, actor, from_state, to_state, reason)`;
    `extra` may add columns (an approval's `subject`) and their constraints."""
    return sa.Table(
        name,
        metadata,
        sa.Column("id", sa.BigInteger, sa.Identity(), primary_key=True),
        sa.Column(key, UUID(as_uuid=False), sa.ForeignKey(record), nullable=False),
        *extra,
        sa.Column("at", sa.DateTime(timezone=True), nullable=False, server_default=NOW),
        sa.Column("actor", sa.Text, nullable=False),
        sa.Column("from_state", sa.Text, nullable=True),
        sa.Column("to_state", sa.Text, nullable=False),
        sa.Column("reason", sa.Text, nullable=False, server_default=""),
        sa.Index(f"{name}_by_{key.removesuffix('_id')}", key, "id"),
    )


@dataclass(frozen=True)
class History:
    """Where a table's changes are written down."""

    table: sa.Table
    # The history column naming the record, and the changed table's column
    # that fills it (an execution's history is its approval's).
    key: str
    record_key: str = "id"
    # Columns with the same value on every row written from this table.
    fixed: Mapping[str, str] = field(default_factory=dict)
    # History columns filled from the changed row as it is after the change
    # (a task's event takes its number from the task's event counter).
    from_record: Mapping[str, str] = field(default_factory=dict)
    # The column naming the state entered (a task's events call it "state").
    to_state_column: str = "to_state"

    def row(self, record_id: Any, *, actor: str, from_state, to_state, reason: str = "") -> dict:
        """The literal columns of a history row; those the table lacks are left out."""
        written = {
            self.key: record_id,
            **self.fixed,
            "actor": actor,
            "from_state": from_state,
            self.to_state_column: to_state,
            "reason": reason,
        }
        return {name: value for name, value in written.items() if name in self.table.c}


async def record(
    conn: AsyncConnection,
    history: History,
    record_id: Any,
    *,
    actor: str,
    to_state: str,
    from_state: str | None = None,
    reason: str = "",
) -> None:
    """A history row for a change made by another statement (a new record)."""
    await conn.execute(
        history.table.insert().values(
            history.row(
                record_id, actor=actor, from_state=from_state, to_state=to_state, reason=reason
            )
        )
    )


async def move(
    conn: AsyncConnection,
    table: sa.Table,
    history: History,
    *where: sa.ColumnElement[bool],
    from_state: str | frozenset[str],
    to_state: str,
    actor: str,
    reason: str = "",
    values: Mapping[str, Any] | None = None,
    written: Mapping[str, Any] | None = None,
) -> list[sa.Row]:
    """`from_state` -> `to_state` for the rows matching `where`, setting
    `values` (and `updated_at`, where the table has one); returns the moved
    rows, oldest first, each with its history row written. `written` adds
    history columns of this change's own (an event's kind and data).

    `from_state` may name several states (a Stop leaves any live one): the
    rows are then locked as they stand and each history row names the state
    its row left. One statement either way: a row that changes state while
    the move waits for it is moved from its new state if that is one of
    them, so nothing slips between one state's update and the next's."""
    stamps = {"updated_at": sa.func.now()} if "updated_at" in table.c else {}
    update = table.update().values(state=to_state, **stamps, **(values or {}))
    literals = {
        **history.row(None, actor=actor, from_state=None, to_state=to_state, reason=reason),
        **(written or {}),
    }
    literals.pop(history.key)
    if isinstance(from_state, str):
        if "from_state" in history.table.c:
            literals["from_state"] = from_state
        moved = update.where(table.c.state == from_state, *where).returning(*table.c).cte("moved")
        left = None
    else:
        (key,) = table.primary_key.columns
        prior = (
            sa.select(key, table.c.state.label("left_state"))
            .where(table.c.state.in_(sorted(from_state)), *where)
            .with_for_update()
            .cte("prior")
        )
        # Not `state == prior.left_state`: a row another transaction moved
        # while `prior` waited for its lock is locked as it now stands, but
        # this update's snapshot still shows its old state, and would skip
        # it (a Stop racing a worker's take stopped nothing). The lock keeps
        # the row in the state `prior` read until this statement ends.
        moved = (
            update.where(key == prior.c[key.name], table.c.state.in_(sorted(from_state)))
            .returning(*table.c, prior.c.left_state)
            .cte("moved")
        )
        left = moved.c.left_state
        literals.pop("from_state", None)
    from_moved = {history.key: moved.c[history.record_key]}
    from_moved |= {name: moved.c[column] for name, column in history.from_record.items()}
    if left is not None and "from_state" in history.table.c:
        from_moved["from_state"] = left
    logged = (
        history.table.insert()
        .from_select(
            [*from_moved, *literals],
            sa.select(
                *from_moved.values(),
                *(
                    sa.literal(value, history.table.c[name].type)
                    for name, value in literals.items()
                ),
            ),
        )
        .cte("logged")
    )
    order = [moved.c[name] for name in ("created_at", "started_at", "id") if name in moved.c]
    query = sa.select(*(moved.c[c.name] for c in table.c)).add_cte(logged).order_by(*order)
    rows = list(await conn.execute(query))
    if str(to_state) == UNCERTAIN:
        uncertain_when_committed(conn, table.name, len(rows))
    return rows


def uncertain_when_committed(conn: AsyncConnection, record: str, count: int) -> None:
    """`count` records of `record` ended UNCERTAIN in conn's transaction:
    counted when it commits, forgotten if it rolls back. (An autocommit
    statement on a plain psycopg connection counts at once:
    nodkit.metrics.count_uncertain.)"""
    if count:
        info = conn.sync_connection.info  # type: ignore[union-attr]
        info.setdefault(_PENDING_UNCERTAIN, Counter())[record] += count


async def events(conn: AsyncConnection, history: History, record_id: str) -> list[sa.Row]:
    """A record's history, oldest first."""
    query = (
        sa.select(history.table)
        .where(history.table.c[history.key] == record_id)
        .order_by(history.table.c.id)
    )
    return list(await conn.execute(query))
