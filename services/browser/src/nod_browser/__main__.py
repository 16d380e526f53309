"""nod-browser serve | migrate, or python -m nod_browser (no database: migrate does nothing)."""

import sys

from nod_browser.settings import BrowserSettings
from nod_browser.wiring import build
from nodkit import cli


def main() -> int:
    """The console script `nod-browser`."""
    return cli.main("browser", BrowserSettings, build, migrations=None)


if __name__ == "__main__":
    sys.exit(main())
