"""The tasks service's tables, all inside the `tasks` schema."""

import sqlalchemy as sa
from sqlalchemy.dialects.postgresql import JSONB, UUID

from nod_tasks import SCHEMA
from nodkit import history
from nodkit.leases import Leases, leases_table

metadata = sa.MetaData(schema=SCHEMA)
NOW = sa.text("now()")
TASK_STATES = "'queued', 'running', 'waiting', 'done', 'failed', 'stopped', 'interrupted'"
STEP_STATES = "'running', 'done', 'failed', 'not_run', 'uncertain'"


def _timestamp(name: str, **kwargs) -> sa.Column:
    return sa.Column(name, sa.DateTime(timezone=True), **kwargs)


tasks = sa.Table(
    "tasks",
    metadata,
    sa.Column(
        "id", UUID(as_uuid=False), primary_key=True, server_default=sa.text("gen_random_uuid()")
    ),
    sa.Column("owner", sa.Text, nullable=False),
    sa.Column("request_id", sa.Text, nullable=True),
    sa.Column("text", sa.Text, nullable=False),
    sa.Column("state", sa.Text, nullable=False),
    sa.Column("message", sa.Text, nullable=False, server_default=""),
    # What a WAITING task waits for (domain.tasks.Wait), else NULL.
    sa.Column("wait", JSONB(none_as_null=True), nullable=True),
    sa.Column("run", sa.Integer, nullable=False, server_default="1"),
    sa.Column("steps", sa.Integer, nullable=False, server_default="0"),
    # The private forms the person filled: {form_id: {kind, item_id, picked}}.
    sa.Column("forms", JSONB, nullable=False, server_default=sa.text("'{}'::jsonb")),
    # The browser session the task drives, once it has opened one.
    sa.Column("session_id", sa.Text, nullable=True),
    # The instance running it (G12): set while RUNNING, and only then.
    sa.Column("runner_instance", sa.Text, nullable=True),
    # Stopped, and the other services not yet told (approvals and payments
    # cancelled, sessions closed, private entries discarded): retried until done.
    sa.Column("cleanup_pending", sa.Boolean, nullable=False, server_default=sa.false()),
    # The instance telling them now (one at a time, across replicas), else NULL.
    sa.Column("teller_instance", sa.Text, nullable=True),
    # The number of its last event: events are numbered 1, 2, ... per task.
    sa.Column("last_event", sa.BigInteger, nullable=False, server_default="0"),
    # The trace context of the call that last queued it (nodkit.tracing).
    sa.Column("traceparent", sa.Text, nullable=True),
    _timestamp("created_at", nullable=False, server_default=NOW),
    _timestamp("updated_at", nullable=False, server_default=NOW),
    sa.CheckConstraint(f"state IN ({TASK_STATES})", name="tasks_state"),
    sa.CheckConstraint(
        "(state = 'running') = (runner_instance IS NOT NULL)", name="tasks_runner_while_running"
    ),
    sa.CheckConstraint("(state = 'waiting') = (wait IS NOT NULL)", name="tasks_wait_while_waiting"),
    sa.UniqueConstraint("owner", "request_id", name="tasks_one_per_request"),
    sa.Index("tasks_by_owner", "owner", "created_at", "id"),
    sa.Index("tasks_queued", "updated_at", postgresql_where=sa.text("state = 'queued'")),
    sa.Index(
        "tasks_running_by_runner", "runner_instance", postgresql_where=sa.text("state = 'running'")
    ),
    sa.Index("tasks_waiting", "updated_at", postgresql_where=sa.text("state = 'waiting'")),
    sa.Index("tasks_cleanup_pending", "updated_at", postgresql_where=sa.text("cleanup_pending")),
)

# The request ids of Continue: a resend (a lost answer, a form posted twice)
# finds the Continue its id made and starts no other run. The primary key
# decides between two resends that race.
continue_requests = sa.Table(
    "continue_requests",
    metadata,
    sa.Column("owner", sa.Text, primary_key=True),
    sa.Column("request_id", sa.Text, primary_key=True),
    sa.Column("task_id", UUID(as_uuid=False), sa.ForeignKey(tasks.c.id), nullable=False),
    # What the person said with it (not private: it is in the task's events too).
    sa.Column("text", sa.Text, nullable=False),
    _timestamp("created_at", nullable=False, server_default=NOW),
    # Pruned oldest first (nod_tasks.pruning).
    sa.Index("continue_requests_by_time", "created_at"),
)

steps = sa.Table(
    "steps",
    metadata,
    sa.Column("task_id", UUID(as_uuid=False), sa.ForeignKey(tasks.c.id), primary_key=True),
    sa.Column("number", sa.Integer, primary_key=True),
    # The model's id for this tool call: its result is given back under it.
    sa.Column("call_id", sa.Text, nullable=False),
    sa.Column("tool", sa.Text, nullable=False),
    sa.Column("arguments", JSONB, nullable=False),
    sa.Column("state", sa.Text, nullable=False),
    sa.Column("result", JSONB(none_as_null=True), nullable=True),
    sa.Column("reason", sa.Text, nullable=False, server_default=""),
    # What the step acts on, written when it starts (domain.steps.Subject):
    # the saved login it enters, the private form whose value it enters, and
    # the payment it pays (or, for a payment request, the payment it made).
    sa.Column("login_id", sa.Text, nullable=True),
    sa.Column("form_id", sa.Text, nullable=True),
    sa.Column("payment_id", sa.Text, nullable=True),
    # The instance running it while it is in flight (G12: "its own"); NULL
    # once it waits for the person, when it belongs to nobody.
    sa.Column("runner_instance", sa.Text, nullable=True),
    # Ids it made: the claim of its private entry, its proposal's approval.
    sa.Column("claim_id", sa.Text, nullable=True),
    sa.Column("approval_id", sa.Text, nullable=True),
    sa.Column("resolution", sa.Text, nullable=True),
    _timestamp("started_at", nullable=False, server_default=NOW),
    _timestamp("ended_at", nullable=True),
    sa.CheckConstraint(f"state IN ({STEP_STATES})", name="steps_state"),
    sa.CheckConstraint("(state = 'running') = (ended_at IS NULL)", name="steps_end_once"),
    sa.CheckConstraint(
        "state = 'running' OR runner_instance IS NULL", name="steps_runner_while_running"
    ),
    sa.Index(
        "steps_running_by_runner",
        "runner_instance",
        postgresql_where=sa.text("state = 'running' AND runner_instance IS NOT NULL"),
    ),
    sa.CheckConstraint(
        "resolution IS NULL OR (state = 'uncertain'"
        " AND resolution IN ('happened', 'did_not_happen'))",
        name="steps_resolution_only_when_uncertain",
    ),
)

# The picture of a step's page (the browser's Screenshot: private fields and
# shown-back entered values painted over), for the person's view of the
# task; never read into anything sent to the model. It goes with its step.
step_screenshots = sa.Table(
    "step_screenshots",
    metadata,
    sa.Column("task_id", UUID(as_uuid=False), primary_key=True),
    sa.Column("number", sa.Integer, primary_key=True),
    sa.Column("image", sa.LargeBinary, nullable=False),
    sa.Column("media_type", sa.Text, nullable=False),
    _timestamp("created_at", nullable=False, server_default=NOW),
    sa.ForeignKeyConstraint(
        ["task_id", "number"], [steps.c.task_id, steps.c.number], ondelete="CASCADE"
    ),
)

# What the last look at an uncertain step found (G14), with the page it saw
# (painted over like a step's picture); beside the step, whose state it
# never changes. It goes with its step.
step_looks = sa.Table(
    "step_looks",
    metadata,
    sa.Column("task_id", UUID(as_uuid=False), primary_key=True),
    sa.Column("number", sa.Integer, primary_key=True),
    sa.Column("finding", sa.Text, nullable=False),
    sa.Column("sentence", sa.Text, nullable=False),
    sa.Column("url", sa.Text, nullable=False),
    _timestamp("looked_at", nullable=False),
    sa.Column("image", sa.LargeBinary, nullable=True),
    sa.Column("media_type", sa.Text, nullable=True),
    sa.CheckConstraint(
        "finding IN ('found', 'no_sign', 'nothing_to_read')", name="step_looks_finding"
    ),
    sa.ForeignKeyConstraint(
        ["task_id", "number"], [steps.c.task_id, steps.c.number], ondelete="CASCADE"
    ),
)

events = sa.Table(
    "events",
    metadata,
    sa.Column("task_id", UUID(as_uuid=False), sa.ForeignKey(tasks.c.id), primary_key=True),
    sa.Column("number", sa.BigInteger, primary_key=True),
    sa.Column("kind", sa.Text, nullable=False),
    # The task's state after the event; for a move, also the state it left
    # and who moved it (NULL for events that move nothing: a step, a model
    # attempt).
    sa.Column("state", sa.Text, nullable=False),
    sa.Column("from_state", sa.Text, nullable=True),
    sa.Column("actor", sa.Text, nullable=True),
    sa.Column("data", JSONB, nullable=False),
    _timestamp("at", nullable=False, server_default=NOW),
)
# A task's moves are written down in its events (nodkit.history.move).
TASK_HISTORY = history.History(
    events, key="task_id", from_record={"number": "last_event"}, to_state_column="state"
)

# What the model is told, in order (domain.prompt): masked, never a value.
transcript = sa.Table(
    "transcript",
    metadata,
    sa.Column("id", sa.BigInteger, sa.Identity(), primary_key=True),
    sa.Column("task_id", UUID(as_uuid=False), sa.ForeignKey(tasks.c.id), nullable=False),
    sa.Column("entry", JSONB, nullable=False),
    sa.Index("transcript_by_task", "task_id", "id"),
)

instance_leases = leases_table(metadata)
INSTANCE_LEASES = Leases(instance_leases)
