"""python -m nod_payments serve | migrate"""

import sys

from nod_payments import MIGRATIONS
from nod_payments.settings import PaymentsSettings
from nod_payments.wiring import build
from nodkit.cli import main

if __name__ == "__main__":
    sys.exit(main("payments", PaymentsSettings, build, migrations=MIGRATIONS))
