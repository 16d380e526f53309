from nod_approvals.store.models import metadata
from nodkit.migrations import run_env

run_env(metadata)
