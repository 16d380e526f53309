"""The pytest plugin every nod test session loads (see pyproject addopts)."""

import base64
import os
import secrets
import uuid
from typing import TextIO, cast

import psycopg
import pytest
from pydantic import SecretStr

from nodkit.client import call_metadata
from nodkit.logging import configure_logging
from nodtest import observed
from nodtest.database import create_test_database, drop_test_database, libpq_url
from nodtest.logcapture import LogTee
from nodtest.scheduling import GroupedScheduling, group_of

pytest_plugins = [
    "nodtest.mail",
    "nodtest.demo",
    "nodtest.tls",
    "nodtest.webapps.twofactor_admin",
    "nodtest.webapps.oscar_shop",
    "nodtest.webapps.allauth_code",
    "nodtest.patterns",
    "nodtest.leak_scan",
]


@pytest.fixture(scope="session")
def database_url():
    url = create_test_database()
    yield url
    # What the session left in the database is scanned for private values.
    observed.keep_database(libpq_url(url))
    drop_test_database(url)


@pytest.fixture(scope="session")
async def db(database_url):
    """A plain autocommit connection, for asserting on rows."""
    async with await psycopg.AsyncConnection.connect(
        libpq_url(database_url), autocommit=True
    ) as conn:
        yield conn


@pytest.fixture(scope="session")
def service_token() -> SecretStr:
    return SecretStr(secrets.token_urlsafe(24))


@pytest.fixture(scope="session")
def vault_key() -> str:
    return base64.b64encode(os.urandom(32)).decode()


@pytest.fixture(scope="session")
def log_tee() -> LogTee:
    tee = LogTee()
    configure_logging("test", level="INFO", stream=cast(TextIO, tee))
    observed.keep_source("log: services in the test process", tee.text)
    return tee


@pytest.fixture
def person() -> str:
    """A person of their own for each test, so tests never see each other's rows."""
    return f"person-{uuid.uuid4().hex[:12]}"


@pytest.fixture
def as_person(service_token, person):
    """gRPC metadata for a call made for `person`."""
    return call_metadata(service_token, person)


@pytest.fixture(scope="session")
def service_env(database_url, service_token, vault_key) -> dict[str, str]:
    """The environment a service process needs."""
    return {
        "NOD_DATABASE_URL": database_url,
        "NOD_SERVICE_TOKEN": service_token.get_secret_value(),
        "NOD_VAULT_KEY": vault_key,
        "NOD_LOG_LEVEL": "INFO",
    }


# Started first when the suite is spread over processes (make test's -n),
# the longest kinds first: each of these modules runs whole on one worker,
# and one begun last would keep the run going minutes after the others end.
LONGEST_FIRST = ("fault_points", "slow", "storm", "state_machine")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    def rank(item: pytest.Item) -> int:
        marked = [i for i, name in enumerate(LONGEST_FIRST) if item.get_closest_marker(name)]
        # Then the groups of modules sharing a system: each is many modules long.
        shares = len(LONGEST_FIRST) if group_of(item.nodeid) else len(LONGEST_FIRST) + 1
        return min(marked, default=shares)

    items.sort(key=rank)  # stable: the order within each kind stays


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log):
    """make test's `--dist loadscope`, with the modules that share a
    make-run system kept on one worker (nodtest.scheduling)."""
    if config.getoption("dist") != "loadscope":
        return None
    # Work units in the order the items are sorted above (the longest
    # first), not loadscope's own (the most tests first).
    config.option.loadscopereorder = False
    return GroupedScheduling(config, log)
