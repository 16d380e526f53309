"""python -m nod_payments serve | migrate"""

import sys

from nod_payments import MIGRATIONS_DIR, SCHEMA
from nod_payments.server import serve
from nod_payments.settings import PaymentsSettings
from nodkit.cli import run_service_command

if __name__ == "__main__":
    sys.exit(
        run_service_command(
            "payments", PaymentsSettings, schema=SCHEMA, migrations_dir=MIGRATIONS_DIR, serve=serve
        )
    )
