"""nod-claims serve | migrate | drop-unreadable --key ID, or the same as
python -m nod_claims"""

import sys
from collections.abc import Sequence

from nod_claims import MIGRATIONS
from nod_claims.settings import ClaimsSettings
from nod_claims.store.unreadable import drop_unreadable
from nod_claims.wiring import build
from nodkit import cli, startup


def main() -> int:
    """The console script `nod-claims`."""

    def drop(argv: Sequence[str]) -> int:
        return startup.drop_unreadable_main(
            "claims", ClaimsSettings, MIGRATIONS, drop_unreadable, argv
        )

    extra = {startup.DROP_UNREADABLE: (startup.DROP_UNREADABLE_HELP, drop)}
    return cli.main("claims", ClaimsSettings, build, migrations=MIGRATIONS, extra=extra)


if __name__ == "__main__":
    sys.exit(main())
