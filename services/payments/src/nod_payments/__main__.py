"""nod-payments serve | migrate, or the same as python -m nod_payments"""

import sys

from nod_payments import MIGRATIONS
from nod_payments.settings import PaymentsSettings
from nod_payments.wiring import build
from nodkit import cli


def main() -> int:
    """The console script `nod-payments`."""
    return cli.main("payments", PaymentsSettings, build, migrations=MIGRATIONS)


if __name__ == "__main__":
    sys.exit(main())
