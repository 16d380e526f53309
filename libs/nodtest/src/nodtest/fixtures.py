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
from nodtest.database import create_test_database, drop_test_database, libpq_url
from nodtest.logcapture import LogTee

pytest_plugins = [
    "nodtest.mail",
    "nodtest.demo",
    "nodtest.tls",
    "nodtest.webapps.twofactor_admin",
    "nodtest.webapps.oscar_shop",
    "nodtest.webapps.allauth_code",
    "nodtest.patterns",
]


@pytest.fixture(scope="session")
def database_url():
    url = create_test_database()
    yield url
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
