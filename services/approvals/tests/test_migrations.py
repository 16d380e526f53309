"""The approvals service's migrations create exactly what its models describe."""

from nodtest.database import migration_drift


def test_migrations_match_the_models(approvals_migrated):
    from nod_approvals import SCHEMA
    from nod_approvals.models import metadata

    assert migration_drift(approvals_migrated, metadata, SCHEMA) == []
