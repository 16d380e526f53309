"""python -m nod_tasks serve | migrate"""

import sys

from nod_tasks import MIGRATIONS
from nod_tasks.settings import TasksSettings
from nod_tasks.wiring import build
from nodkit.cli import main

if __name__ == "__main__":
    sys.exit(main("tasks", TasksSettings, build, migrations=MIGRATIONS))
