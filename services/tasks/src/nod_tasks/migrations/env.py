from nod_tasks.store.models import metadata
from nodkit.migrations import run_env

run_env(metadata)
