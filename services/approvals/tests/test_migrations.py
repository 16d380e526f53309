"""The approvals service's migrations create exactly what its models describe."""

from nod_approvals import SCHEMA
from nod_approvals.store.models import metadata
from nodtest.database import migration_drift


def test_migrations_match_the_models(approvals_migrated):
    assert migration_drift(approvals_migrated, metadata, SCHEMA) == []
