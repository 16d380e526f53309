"""nod's gateway: the web UI where a person signs in, watches nod do a task
and decides. It keeps only who may sign in and their sessions; every page
and action goes through the services' gRPC APIs."""

from nodkit.migrations import Migrations

SCHEMA = "gateway"
MIGRATIONS = Migrations(SCHEMA, __name__)
