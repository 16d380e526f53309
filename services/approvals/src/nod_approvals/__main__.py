"""python -m nod_approvals serve | migrate"""

import sys

from nod_approvals import MIGRATIONS_DIR, SCHEMA
from nod_approvals.server import serve
from nod_approvals.settings import ApprovalsSettings
from nodkit.cli import run_service_command

if __name__ == "__main__":
    sys.exit(
        run_service_command(
            "approvals",
            ApprovalsSettings,
            schema=SCHEMA,
            migrations_dir=MIGRATIONS_DIR,
            serve=serve,
        )
    )
