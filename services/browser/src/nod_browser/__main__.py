"""python -m nod_browser serve | migrate (migrate has nothing to do: no database)."""

import sys

from nod_browser.settings import BrowserSettings
from nod_browser.wiring import build
from nodkit.cli import main

if __name__ == "__main__":
    sys.exit(main("browser", BrowserSettings, build, migrations=None))
