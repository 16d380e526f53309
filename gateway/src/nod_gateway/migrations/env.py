from nod_gateway.people.models import metadata
from nodkit.migrations import run_env

run_env(metadata)
