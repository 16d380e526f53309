"""python -m nod_approvals serve | migrate"""

import sys

from nod_approvals import MIGRATIONS
from nod_approvals.settings import ApprovalsSettings
from nod_approvals.wiring import build
from nodkit.cli import main

if __name__ == "__main__":
    sys.exit(main("approvals", ApprovalsSettings, build, migrations=MIGRATIONS))
