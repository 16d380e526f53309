"""`make clean`: nothing left that can't be decrypted. The database `make
run` created itself is dropped and its private cluster stopped, so var/ (and
the vault key in it) can go. A database it found (NOD_DATABASE_URL, or one
that already existed) is not ours to drop: then the vault key is kept, so its
sealed values still open next time.

Usage: clean.py VAR"""

import pathlib
import shutil
import sys

import psycopg
from sqlalchemy.engine import make_url

# scripts/, in place of this file's own folder (sys.path[0] for a script):
# nodrun/secrets.py there would stand in for the standard library's
# `secrets`. The imports below come after it (ruff's E402 is off here).
sys.path[0] = str(pathlib.Path(__file__).resolve().parents[1])

from nodrun import postgres

KEEP_WHEN_NOT_OURS = ("vault.key",)


def drop_created_database(var: pathlib.Path) -> bool:
    marker = var / postgres.CREATED_MARKER
    if not marker.exists():
        return False
    url = make_url(marker.read_text().strip())
    admin = postgres.libpq(url.set(database="postgres").render_as_string(hide_password=False))
    try:
        with psycopg.connect(admin, autocommit=True, connect_timeout=5) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{url.database}" WITH (FORCE)')
    except psycopg.OperationalError as error:
        print(f"nod: could not drop the database make run made ({error}); keeping var/vault.key")
        return False
    print(f"nod: dropped the database {url.database} that make run made")
    return True


def clean(var: pathlib.Path) -> None:
    if not var.exists():
        return
    ours = drop_created_database(var) or (var / "pg").exists()
    postgres.stop_private_cluster(var)
    for path in var.iterdir():
        if not ours and path.name in KEEP_WHEN_NOT_OURS:
            print(f"nod: keeping {path} (the database it seals values in is not make run's)")
            continue
        shutil.rmtree(path) if path.is_dir() else path.unlink()


if __name__ == "__main__":
    clean(pathlib.Path(sys.argv[1]))
