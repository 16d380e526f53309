"""Everything nod let someone outside it see during a test session: service
logs, gRPC replies, the gateway's pages and event streams, what the model
stand-ins received, the test database's rows. nodtest.leak_scan looks
through it for the session's canaries.

Cheap to keep: texts are kept as they come; files and live buffers are
only read when the scan runs (a service's log is complete only then)."""

import pathlib
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import psycopg


@dataclass(frozen=True)
class Observation:
    # "kind: which", where a person or a caller would have seen it, e.g.
    # "log: nod_claims (claims.log)".
    where: str
    text: str


class Observations:
    """One session's (or a test's own, to try the scan on)."""

    def __init__(self) -> None:
        self._texts: list[Observation] = []
        self._sources: list[tuple[str, Callable[[], str]]] = []

    def keep(self, where: str, text: str) -> None:
        self._texts.append(Observation(where, text))

    def keep_source(self, where: str, read: Callable[[], str]) -> None:
        """`read` is called when the scan runs."""
        self._sources.append((where, read))

    def keep_file(self, where: str, path: pathlib.Path) -> None:
        self.keep_source(where, lambda: _read(path))

    def __iter__(self) -> Iterator[Observation]:
        yield from self._texts
        for where, read in self._sources:
            yield Observation(where, read())

    def sizes(self) -> tuple[int, int]:
        """(how many observations, how many characters), reading sources."""
        texts = list(self)
        return len(texts), sum(len(o.text) for o in texts)


def _read(path: pathlib.Path) -> str:
    return path.read_text(errors="replace") if path.exists() else ""


# Columns that hold only ciphertext (the vault's sealed values): looking in
# them finds nothing, and their base64 could match a short encoding by chance.
CIPHERTEXT_COLUMNS = frozenset(
    {
        ("claims", "vault_items", "sealed_fields"),
        ("claims", "private_entries", "sealed_fields"),
    }
)

_COLUMNS = """
    SELECT c.table_schema, c.table_name, c.column_name
    FROM information_schema.columns c
    JOIN information_schema.tables t USING (table_schema, table_name)
    WHERE t.table_type = 'BASE TABLE'
      AND c.table_schema NOT IN ('pg_catalog', 'information_schema')
      AND c.table_schema NOT LIKE 'pg\\_%'
    ORDER BY c.table_schema, c.table_name, c.ordinal_position
"""


def database_rows(libpq_url: str) -> list[Observation]:
    """Every row of every table in every schema of the database, as
    PostgreSQL's text COPY writes it (bytea as hex), but ciphertext."""
    with psycopg.connect(libpq_url, autocommit=True, connect_timeout=5) as conn:
        tables: dict[tuple[str, str], list[str]] = {}
        for schema, table, column in conn.execute(_COLUMNS).fetchall():
            if (schema, table, column) not in CIPHERTEXT_COLUMNS:
                tables.setdefault((schema, table), []).append(column)
        found = []
        for (schema, table), columns in tables.items():
            names = ", ".join(f'"{c}"' for c in columns)
            copy = f'COPY (SELECT {names} FROM "{schema}"."{table}") TO STDOUT'
            with conn.cursor() as cur, cur.copy(copy) as rows:
                text = b"".join(bytes(chunk) for chunk in rows).decode(errors="replace")
            if text:
                found.append(Observation(f"database row: {schema}.{table}", text))
        return found


_session = Observations()


def session_observations() -> Observations:
    return _session


def keep(where: str, text: str) -> None:
    _session.keep(where, text)


def keep_source(where: str, read: Callable[[], str]) -> None:
    _session.keep_source(where, read)


def keep_file(where: str, path: pathlib.Path) -> None:
    _session.keep_file(where, path)


# Seconds spent reading databases' rows, for the session's summary.
database_seconds = [0.0]


def keep_database(libpq_url: str) -> None:
    """Reads the rows now (the database is about to go)."""
    started = time.perf_counter()
    for observation in database_rows(libpq_url):
        _session.keep(observation.where, observation.text)
    database_seconds[0] += time.perf_counter() - started
