"""nod-approvals serve | migrate | drop-unreadable --key ID, or the same as
python -m nod_approvals"""

import sys
from collections.abc import Sequence

from nod_approvals import MIGRATIONS
from nod_approvals.settings import ApprovalsSettings
from nod_approvals.store.unreadable import drop_unreadable
from nod_approvals.wiring import build
from nodkit import cli, startup


def main() -> int:
    """The console script `nod-approvals`."""

    def drop(argv: Sequence[str]) -> int:
        return startup.drop_unreadable_main(
            "approvals", ApprovalsSettings, MIGRATIONS, drop_unreadable, argv
        )

    extra = {startup.DROP_UNREADABLE: (startup.DROP_UNREADABLE_HELP, drop)}
    return cli.main("approvals", ApprovalsSettings, build, migrations=MIGRATIONS, extra=extra)


if __name__ == "__main__":
    sys.exit(main())
