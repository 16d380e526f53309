"""Running one of the Django sites in sites/: migrate and seed a database
once (kept in pytest's cache directory between runs), then for each test
copy it and start Django's own server on the copy.

Migrating is the slow part (Oscar has well over a hundred migrations), and a
copy of a freshly migrated and seeded file is the same fresh database, so
each test still starts from nothing any other test did."""

import asyncio
import hashlib
import importlib.metadata
import json
import os
import pathlib
import secrets
import shutil
import sqlite3
import subprocess
import sys
import time
from dataclasses import dataclass, field

import pytest

from nodtest.addresses import SITE_HOST
from nodtest.processes import free_port
from nodtest.webapps.process import SiteProcess

SITES = "nodtest.webapps.sites"


def site_env(settings: str, db: pathlib.Path, **extra: str) -> dict[str, str]:
    return {
        "DJANGO_SETTINGS_MODULE": f"{SITES}.{settings}.settings",
        "NODTEST_SITE_DB": str(db),
        "NODTEST_SITE_SECRET_KEY": secrets.token_urlsafe(32),
        "PYTHONUNBUFFERED": "1",
        **extra,
    }


def run_in_site(env: dict[str, str], argv: list[str], stdin: str | None = None) -> None:
    """A one-off command in the site's settings (migrate, a seed script);
    its output is shown only if it fails (it never sees a private value but
    the one on stdin, which it doesn't print)."""
    done = subprocess.run(
        [sys.executable, *argv],
        env={**os.environ, **env},
        input=stdin,
        capture_output=True,
        text=True,
        timeout=300,
    )
    if done.returncode != 0:
        raise RuntimeError(f"{argv} failed:\n{done.stdout}\n{done.stderr}")


async def build_database(
    settings: str, directory: pathlib.Path, seed: dict, **extra_env: str
) -> pathlib.Path:
    """Migrates a new SQLite file and runs the site's seed script with
    `seed` (JSON on stdin); returns the file, a template for each test."""
    db = directory / "template.sqlite3"
    env = site_env(settings, db, **extra_env)
    await asyncio.to_thread(run_in_site, env, ["-m", "django", "migrate", "--no-input"])
    await asyncio.to_thread(run_in_site, env, ["-m", f"{SITES}.{settings}.seed"], json.dumps(seed))
    return db


def template_key(settings: str, seed: dict) -> str:
    """Names a built database by everything that goes into it: the installed
    distributions (the applications' migrations), the site's own files and
    the seed. Any change makes a new one."""
    digest = hashlib.sha256(json.dumps(seed, sort_keys=True).encode())
    for dist in sorted(f"{d.name}=={d.version}" for d in importlib.metadata.distributions()):
        digest.update(dist.encode())
    site_dir = pathlib.Path(__file__).parent / "sites"
    for path in sorted([site_dir / "common.py", *(site_dir / settings).rglob("*")]):
        if path.is_file() and "__pycache__" not in path.parts:
            digest.update(path.read_bytes())
    return f"{settings}-{digest.hexdigest()[:16]}.sqlite3"


def cache_dir_of(config: pytest.Config) -> pathlib.Path | None:
    """Where a test session keeps built databases between runs: pytest's
    cache directory, when there is one."""
    cache = getattr(config, "cache", None)
    return None if cache is None else cache.mkdir("nodtest-webapps")


async def cached_database(
    cache: pathlib.Path | None,
    settings: str,
    scratch: pathlib.Path,
    seed: dict,
    **extra_env: str,
) -> pathlib.Path:
    """build_database, kept in `cache` between runs when there is one
    (Oscar's migrations alone take 20 s and more): pytest's cache directory
    for the tests (cache_dir_of), a directory of their own for benchmarks."""
    if cache is None:
        return await build_database(settings, scratch, seed, **extra_env)
    kept = cache / template_key(settings, seed)
    if not kept.exists():
        built = await build_database(settings, scratch, seed, **extra_env)
        partial = kept.with_suffix(f".{os.getpid()}.partial")
        shutil.copyfile(built, partial)
        os.replace(partial, kept)  # whole or not at all, if two runs race
        for stale in kept.parent.glob(f"{settings}-*.sqlite3"):
            if stale != kept:
                stale.unlink(missing_ok=True)
    return kept


@dataclass
class RunningSite:
    """A started site: where it answers, its database file and its log."""

    url: str
    db: pathlib.Path
    process: SiteProcess
    started_in_s: float = field(default=0.0)

    def query(self, sql: str, *params: object) -> list[tuple]:
        """Rows from the site's own database, read-only."""
        with sqlite3.connect(f"file:{self.db}?mode=ro", uri=True, timeout=10) as conn:
            return conn.execute(sql, params).fetchall()

    def log_text(self) -> str:
        return self.process.log_text()

    def requests(self, method: str, path: str) -> list[int]:
        """Statuses of the requests Django's own request log shows for
        `method path` (query strings included in `path` if any)."""
        needle = f'"{method} {path} HTTP/1.1" '
        return [
            int(line.split(needle, 1)[1].split()[0])
            for line in self.log_text().splitlines()
            if needle in line
        ]

    def stop(self) -> None:
        self.process.stop()


async def start_site(
    settings: str,
    template: pathlib.Path,
    directory: pathlib.Path,
    ready_path: str = "/",
    **extra_env: str,
) -> RunningSite:
    """Copies the template database and starts `manage.py runserver` on it."""
    started = time.monotonic()
    db = directory / "site.sqlite3"
    shutil.copyfile(template, db)
    port = free_port()
    process = SiteProcess(
        [
            sys.executable,
            "-m",
            "django",
            "runserver",
            "--noreload",
            "--insecure",  # serves the static files with DEBUG off
            "--skip-checks",
            f"{SITE_HOST}:{port}",
        ],
        site_env(settings, db, **extra_env),
        directory / "server.log",
    )
    process.start()
    url = f"http://{SITE_HOST}:{port}"
    try:
        await process.wait_until_answering(url + ready_path)
    except BaseException:
        process.stop()
        raise
    return RunningSite(url, db, process, time.monotonic() - started)
