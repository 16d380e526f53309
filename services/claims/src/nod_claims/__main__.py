"""nod-claims serve | migrate, or the same as python -m nod_claims"""

import sys

from nod_claims import MIGRATIONS
from nod_claims.settings import ClaimsSettings
from nod_claims.wiring import build
from nodkit import cli


def main() -> int:
    """The console script `nod-claims`."""
    return cli.main("claims", ClaimsSettings, build, migrations=MIGRATIONS)


if __name__ == "__main__":
    sys.exit(main())
