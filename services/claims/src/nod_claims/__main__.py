"""python -m nod_claims serve | migrate"""

import sys

from nod_claims import MIGRATIONS
from nod_claims.settings import ClaimsSettings
from nod_claims.wiring import build
from nodkit.cli import main

if __name__ == "__main__":
    sys.exit(main("claims", ClaimsSettings, build, migrations=MIGRATIONS))
