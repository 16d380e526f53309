"""approvals.erased_at: a removed person's words erased from what is over

Revision ID: 0006
Revises: 0005_sealed_key_ids
Create Date: 2026-12-07 10:00:00

A decided approval never changes, nor an ended execution (the triggers of
0001-0003). One change is now let through, once, and only for an approval
that is over (not pending): its words emptied (summary, saved action,
reason) as `erased_at` is set, everything else as it was; and then its
ended execution's result and reason emptied. What the promise needs stays:
the states, the digest of what ran, the times. Pods of the release before
never set erased_at, so the triggers hold for them as before.
"""

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005_sealed_key_ids"
branch_labels = None
depends_on = None

_APPROVAL_KEPT = (
    "id, owner, task_id, account_id, app, action, digest, state, created_at, expires_at,"
    " decided_at, request_id, possible_duplicate_of"
)


def _row(prefix: str, columns: str) -> str:
    return ", ".join(f"{prefix}.{name.strip()}" for name in columns.split(","))


# 0003's function, with the erasure let through first.
_APPROVALS = """
CREATE OR REPLACE FUNCTION approvals.approvals_one_direction() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    {erasure}
    IF OLD.state <> 'pending' AND NEW IS DISTINCT FROM OLD THEN
        RAISE EXCEPTION 'approval % is % and cannot change', OLD.id, OLD.state;
    END IF;
    IF (NEW.id, NEW.owner, NEW.task_id, NEW.account_id, NEW.app, NEW.action, NEW.summary,
        NEW.saved_action, NEW.digest, NEW.created_at, NEW.expires_at, NEW.request_id,
        NEW.possible_duplicate_of)
       IS DISTINCT FROM
       (OLD.id, OLD.owner, OLD.task_id, OLD.account_id, OLD.app, OLD.action, OLD.summary,
        OLD.saved_action, OLD.digest, OLD.created_at, OLD.expires_at, OLD.request_id,
        OLD.possible_duplicate_of) THEN
        RAISE EXCEPTION 'approval %: the saved action never changes', OLD.id;
    END IF;
    RETURN NEW;
END $$;
"""
_APPROVAL_ERASURE = f"""
    IF OLD.erased_at IS NULL AND NEW.erased_at IS NOT NULL THEN
        IF OLD.state = 'pending'
           OR ({_row("NEW", _APPROVAL_KEPT)}) IS DISTINCT FROM ({_row("OLD", _APPROVAL_KEPT)})
           OR (NEW.summary, NEW.saved_action, NEW.reason) IS DISTINCT FROM ('', '', '') THEN
            RAISE EXCEPTION 'approval %: an erasure empties the words of one that is over', OLD.id;
        END IF;
        RETURN NEW;
    END IF;"""

# 0001's function, with the emptying of an ended execution's words let through.
_EXECUTIONS = """
CREATE OR REPLACE FUNCTION approvals.executions_one_direction() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        IF NEW.state <> 'running' OR NOT EXISTS (
            SELECT 1 FROM approvals.approvals WHERE id = NEW.approval_id AND state = 'approved'
        ) THEN
            RAISE EXCEPTION 'an execution starts running, for an approved approval only';
        END IF;
        RETURN NEW;
    END IF;
    {erasure}
    IF OLD.state <> 'running' AND NEW IS DISTINCT FROM OLD THEN
        RAISE EXCEPTION 'execution % is % and cannot change', OLD.id, OLD.state;
    END IF;
    IF (NEW.id, NEW.approval_id, NEW.instance_id, NEW.started_at)
       IS DISTINCT FROM (OLD.id, OLD.approval_id, OLD.instance_id, OLD.started_at) THEN
        RAISE EXCEPTION 'execution % cannot be re-pointed', OLD.id;
    END IF;
    RETURN NEW;
END $$;
"""
_EXECUTION_ERASURE = """
    IF OLD.state <> 'running'
       AND (NEW.result, NEW.reason) = ('', '')
       AND (NEW.id, NEW.approval_id, NEW.instance_id, NEW.state, NEW.started_at, NEW.finished_at)
           IS NOT DISTINCT FROM
           (OLD.id, OLD.approval_id, OLD.instance_id, OLD.state, OLD.started_at, OLD.finished_at)
       AND EXISTS (
           SELECT 1 FROM approvals.approvals WHERE id = OLD.approval_id AND erased_at IS NOT NULL
       ) THEN
        RETURN NEW;
    END IF;"""


def upgrade() -> None:
    op.add_column(
        "approvals",
        sa.Column("erased_at", sa.DateTime(timezone=True), nullable=True),
        schema="approvals",
    )
    op.execute(_APPROVALS.format(erasure=_APPROVAL_ERASURE))
    op.execute(_EXECUTIONS.format(erasure=_EXECUTION_ERASURE))


def downgrade() -> None:
    op.execute(_EXECUTIONS.format(erasure=""))
    op.execute(_APPROVALS.format(erasure=""))
    op.drop_column("approvals", "erased_at", schema="approvals")
