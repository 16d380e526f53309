"""what a step acts on and who runs it, recorded when it starts; who moved a task

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-02 09:00:00

A step cut off before its result was written (a crash, a restart, Stop)
kept only "it was stopped" in its result, so the saved-login rule could not
see which login it had entered. steps.login_id and steps.form_id are now
written when a step starts, and filled here for the steps already recorded
from their arguments (a login picked in a private form is in the task's
forms). steps.runner_instance names the instance a step is in flight on,
so that instance's restart (or the sweep of a dead one) ends it even when
its task was stopped meanwhile. events.from_state and events.actor record
each move of a task.
"""

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("steps", sa.Column("login_id", sa.Text(), nullable=True), schema="tasks")
    op.add_column("steps", sa.Column("form_id", sa.Text(), nullable=True), schema="tasks")
    op.add_column("steps", sa.Column("runner_instance", sa.Text(), nullable=True), schema="tasks")
    op.add_column("events", sa.Column("from_state", sa.Text(), nullable=True), schema="tasks")
    op.add_column("events", sa.Column("actor", sa.Text(), nullable=True), schema="tasks")
    op.execute(
        """
        UPDATE tasks.steps SET login_id = arguments->>'login_id'
         WHERE tool = 'enter_saved_login' AND jsonb_typeof(arguments->'login_id') = 'string'
        """
    )
    op.execute(
        """
        UPDATE tasks.steps s
           SET form_id = s.arguments->>'form_id',
               login_id = CASE WHEN (t.forms->(s.arguments->>'form_id')->>'picked')::boolean
                               THEN t.forms->(s.arguments->>'form_id')->>'item_id' END
          FROM tasks.tasks t
         WHERE t.id = s.task_id AND s.tool = 'enter_from_private_form'
           AND jsonb_typeof(s.arguments->'form_id') = 'string'
        """
    )
    op.execute(
        """
        UPDATE tasks.steps SET payment_id = arguments->>'payment_id'
         WHERE tool = 'pay' AND payment_id IS NULL
           AND jsonb_typeof(arguments->'payment_id') = 'string'
        """
    )
    # A step in flight now is its running task's.
    op.execute(
        """
        UPDATE tasks.steps s SET runner_instance = t.runner_instance
          FROM tasks.tasks t
         WHERE t.id = s.task_id AND s.state = 'running' AND t.state = 'running'
        """
    )
    op.create_check_constraint(
        "steps_runner_while_running",
        "steps",
        "state = 'running' OR runner_instance IS NULL",
        schema="tasks",
    )
    op.create_index(
        "steps_running_by_runner",
        "steps",
        ["runner_instance"],
        schema="tasks",
        postgresql_where=sa.text("state = 'running' AND runner_instance IS NOT NULL"),
    )


def downgrade() -> None:
    op.drop_index("steps_running_by_runner", table_name="steps", schema="tasks")
    op.drop_constraint("steps_runner_while_running", "steps", schema="tasks")
    op.drop_column("steps", "runner_instance", schema="tasks")
    op.drop_column("events", "actor", schema="tasks")
    op.drop_column("events", "from_state", schema="tasks")
    op.drop_column("steps", "form_id", schema="tasks")
    op.drop_column("steps", "login_id", schema="tasks")
