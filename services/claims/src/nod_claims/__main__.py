"""python -m nod_claims serve | migrate"""

import sys

from nod_claims import MIGRATIONS_DIR, SCHEMA
from nod_claims.server import serve
from nod_claims.settings import ClaimsSettings
from nodkit.cli import run_service_command

if __name__ == "__main__":
    sys.exit(
        run_service_command(
            "claims", ClaimsSettings, schema=SCHEMA, migrations_dir=MIGRATIONS_DIR, serve=serve
        )
    )
