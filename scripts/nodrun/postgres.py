"""Finding a PostgreSQL for `make run`, in DESIGN.md's order: the one in
NOD_DATABASE_URL, else a server answering locally, else a private cluster
under var/ made with the system's binaries, which make run stops when it
ends (make clean stops it too, for a make run that was killed)."""

import glob
import os
import pathlib
import shlex
import shutil
import subprocess
import time

import psycopg
from sqlalchemy.engine import make_url

from nodrun.ports import free_port

LOCAL_ADMIN_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"
# The database make run uses on a server it finds (NOD_RUN_DATABASE moves it).
DATABASE = os.environ.get("NOD_RUN_DATABASE", "nod")
# Names the database make run created itself (make clean drops it).
CREATED_MARKER = "created-database"


def libpq(url: str) -> str:
    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


def answers(url: str) -> bool:
    try:
        with psycopg.connect(libpq(url), connect_timeout=3):
            return True
    except psycopg.OperationalError:
        return False


def ensure_database(admin_url: str, var: pathlib.Path, name: str = DATABASE) -> str:
    """Creates the nod database if missing (and says so in var/); returns its URL."""
    url = make_url(admin_url).set(database=name).render_as_string(hide_password=False)
    with psycopg.connect(libpq(admin_url), autocommit=True, connect_timeout=5) as conn:
        if not conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone():
            conn.execute(f'CREATE DATABASE "{name}"')
            (var / CREATED_MARKER).write_text(url)
    return url


def _bindir() -> pathlib.Path:
    if shutil.which("pg_config"):
        found = subprocess.run(["pg_config", "--bindir"], capture_output=True, text=True)
        if found.returncode == 0 and (pathlib.Path(found.stdout.strip()) / "initdb").exists():
            return pathlib.Path(found.stdout.strip())
    candidates = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    if not candidates:
        raise SystemExit(
            "No PostgreSQL found: set NOD_DATABASE_URL, start a local server on 127.0.0.1:5432,"
            " or install PostgreSQL's server binaries (apt-get install -y postgresql)."
        )
    return pathlib.Path(candidates[-1]).parent


def _as_cluster_owner(command: list[str]) -> list[str]:
    # initdb and postgres refuse to run as root.
    if os.geteuid() == 0:
        return ["runuser", "-u", "postgres", "--", *command]
    return command


def start_private_cluster(var: pathlib.Path) -> str:
    """A cluster of our own under var/pg; started if not running. Returns an
    admin URL."""
    root = var / "pg"
    data, port_file = root / "data", root / "port"
    bindir = _bindir()
    if not (data / "PG_VERSION").exists():
        root.mkdir(parents=True, exist_ok=True)
        if os.geteuid() == 0:
            shutil.chown(root, "postgres", "postgres")
        subprocess.run(
            _as_cluster_owner(
                [str(bindir / "initdb"), "-D", str(data), "-U", "postgres", "--auth=trust"]
            ),
            check=True,
            capture_output=True,
        )
    port = int(port_file.read_text()) if port_file.exists() else free_port()
    url = f"postgresql+psycopg://postgres@127.0.0.1:{port}/postgres"
    if not answers(url):
        options = f"-p {port} -k {root} -c listen_addresses=127.0.0.1"
        subprocess.run(
            _as_cluster_owner(
                [
                    str(bindir / "pg_ctl"),
                    "-D",
                    str(data),
                    "-l",
                    str(root / "log"),
                    "-o",
                    options,
                    "-w",
                    "start",
                ]
            ),
            check=True,
        )
        port_file.write_text(str(port))
    deadline = time.monotonic() + 30
    while not answers(url):
        if time.monotonic() > deadline:
            raise SystemExit(f"the private PostgreSQL under {root} did not start; see {root}/log")
        time.sleep(0.3)
    return url


def find_database(var: pathlib.Path) -> tuple[str, str, bool]:
    """(database URL, where it came from, whether it is make run's private
    cluster: make run stops that one when it ends)."""
    if os.environ.get("NOD_DATABASE_URL"):
        return os.environ["NOD_DATABASE_URL"], "NOD_DATABASE_URL", False
    if not os.environ.get("NOD_RUN_PRIVATE_POSTGRES") and answers(LOCAL_ADMIN_URL):
        return ensure_database(LOCAL_ADMIN_URL, var), "the local server on 127.0.0.1:5432", False
    admin = start_private_cluster(var)
    return ensure_database(admin, var), f"a private cluster under {var / 'pg'}", True


def _stop_command(data: pathlib.Path) -> list[str]:
    return _as_cluster_owner([str(_bindir() / "pg_ctl"), "-D", str(data), "-m", "fast", "stop"])


def stop_private_cluster(var: pathlib.Path) -> bool:
    """Stops the cluster under var/pg if it runs; whether it did. pg_ctl's
    own lines are kept from make run's output, which may have no reader."""
    data = var / "pg" / "data"
    if not (data / "postmaster.pid").exists():
        return False
    return subprocess.run(_stop_command(data), check=False, capture_output=True).returncode == 0


def stopped_with_make_run(var: pathlib.Path) -> str | None:
    """Stops the private cluster as make run ends; the line that says so,
    or that it is left running and how to stop it."""
    root = var / "pg"
    if stop_private_cluster(var):
        return f"nod: stopped the private PostgreSQL under {root}"
    if (root / "data" / "postmaster.pid").exists():
        return (
            f"nod: the private PostgreSQL under {root} is left running (see {root / 'log'});"
            f" stop it with: {shlex.join(_stop_command(root / 'data'))}"
        )
    return None
