"""nod-tasks serve | migrate, or the same as python -m nod_tasks"""

import sys

from nod_tasks import MIGRATIONS
from nod_tasks.settings import TasksSettings
from nod_tasks.wiring import build
from nodkit import cli


def main() -> int:
    """The console script `nod-tasks`."""
    return cli.main("tasks", TasksSettings, build, migrations=MIGRATIONS)


if __name__ == "__main__":
    sys.exit(main())
