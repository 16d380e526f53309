import sqlalchemy as sa

from nod_gateway import SCHEMA

metadata = sa.MetaData(schema=SCHEMA)

people = sa.Table(
    "people",
    metadata,
    # What they sign in with: unique among the people here now, and free
    # to be given again once they are removed.
    sa.Column("name", sa.Text, primary_key=True),
    # Who they are to every service (x-nod-user): never given to anyone
    # else, so a new person with an old name owns nothing of the old one's.
    # The default is for a release before ids, still running during the
    # rollout that adds them: this one gives the id (store.new_person_id).
    sa.Column(
        "id",
        sa.Text,
        nullable=False,
        unique=True,
        server_default=sa.text("gen_random_uuid()::text"),
    ),
    sa.Column("password_hash", sa.Text, nullable=False),
    sa.Column(
        "created_at", sa.DateTime(timezone=True), server_default=sa.func.now(), nullable=False
    ),
    # Where nudges go (nudges.py); NULL: none are emailed.
    sa.Column("nudge_address", sa.Text, nullable=True),
    # When a task page of theirs was last seen open (its live timeline says
    # so while it streams): nudges wait for the person's absence.
    sa.Column("page_seen_at", sa.DateTime(timezone=True), nullable=True),
)

sessions = sa.Table(
    "sessions",
    metadata,
    # Only the SHA-256 of the cookie's token is kept: a copy of this table
    # signs nobody in.
    sa.Column("token_hash", sa.LargeBinary, primary_key=True),
    sa.Column("person", sa.Text, sa.ForeignKey("people.id", ondelete="CASCADE"), nullable=False),
    sa.Column("csrf_token", sa.Text, nullable=False),
    sa.Column(
        "created_at", sa.DateTime(timezone=True), server_default=sa.func.now(), nullable=False
    ),
    sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
    # Moved on when the session loads a page, at most once a minute
    # (store.SEEN_EVERY_S): for the operator's list of sessions.
    sa.Column(
        "last_seen_at", sa.DateTime(timezone=True), server_default=sa.func.now(), nullable=False
    ),
    # For pruning (people/pruning.py): the expired are found without a scan.
    sa.Index("sessions_by_expiry", "expires_at"),
)

sign_in_attempts = sa.Table(
    "sign_in_attempts",
    metadata,
    sa.Column("id", sa.BigInteger, sa.Identity(), primary_key=True),
    sa.Column("name", sa.Text, nullable=False),
    sa.Column("address", sa.Text, nullable=False),
    sa.Column("succeeded", sa.Boolean, nullable=False),
    sa.Column("at", sa.DateTime(timezone=True), server_default=sa.func.now(), nullable=False),
    sa.Index("sign_in_attempts_by_name", "name", "at"),
    sa.Index("sign_in_attempts_by_address", "address", "at"),
    # For pruning (people/pruning.py): the oldest are found without a scan.
    sa.Index("sign_in_attempts_by_time", "at"),
)

nudges = sa.Table(
    "nudges",
    metadata,
    # One row per wait: the replica whose INSERT makes it is the one that emails.
    sa.Column("task_id", sa.Text, primary_key=True),
    sa.Column("wait_id", sa.Text, primary_key=True),
    sa.Column("person", sa.Text, sa.ForeignKey("people.id", ondelete="CASCADE"), nullable=False),
    sa.Column(
        "claimed_at", sa.DateTime(timezone=True), server_default=sa.func.now(), nullable=False
    ),
    sa.Column("instance_id", sa.Text, nullable=False),
    # sent | failed (the email is not tried again: a person may have read a
    # failure's retry as a second nudge), NULL while it is being sent.
    sa.Column("outcome", sa.Text, nullable=True),
    sa.Column("ended_at", sa.DateTime(timezone=True), nullable=True),
    sa.Index("nudges_by_person", "person"),
)
