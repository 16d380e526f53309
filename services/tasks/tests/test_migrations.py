"""The tasks service's migrations create exactly what its models describe."""

from nod_tasks import SCHEMA
from nod_tasks.store.models import metadata
from nodtest.database import migration_drift


def test_migrations_match_the_models(tasks_migrated):
    assert migration_drift(tasks_migrated, metadata, SCHEMA) == []
