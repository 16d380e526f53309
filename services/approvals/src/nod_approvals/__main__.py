"""nod-approvals serve | migrate, or the same as python -m nod_approvals"""

import sys

from nod_approvals import MIGRATIONS
from nod_approvals.settings import ApprovalsSettings
from nod_approvals.wiring import build
from nodkit import cli


def main() -> int:
    """The console script `nod-approvals`."""
    return cli.main("approvals", ApprovalsSettings, build, migrations=MIGRATIONS)


if __name__ == "__main__":
    sys.exit(main())
