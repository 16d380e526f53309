"""python -m nod_browser serve | migrate (migrate has nothing to do: no database)."""

import sys

from nod_browser.server import serve
from nod_browser.settings import BrowserSettings
from nodkit.cli import run_service_command

if __name__ == "__main__":
    sys.exit(
        run_service_command(
            "browser", BrowserSettings, schema=None, migrations_dir=None, serve=serve
        )
    )
