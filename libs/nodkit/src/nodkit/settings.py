"""The settings every service shares, read from NOD_* environment variables.

Each service subclasses ServiceSettings once (settings.py) with its own
prefix, NOD_<SERVICE>_ (so one shared environment, as under `make run`, can't
hand one service's lease ttl to another), builds it once in __main__ and
passes it down; nothing else reads os.environ. The shared settings below keep
their DESIGN.md names (NOD_DATABASE_URL, NOD_SERVICE_TOKEN, ...). Code and
tests may also pass any setting by its field name.
"""

import socket

from pydantic import AliasChoices, Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict


def shared(name: str) -> AliasChoices:
    """A setting every service reads under the same name."""
    return AliasChoices(f"NOD_{name.upper()}")


class ServiceSettings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="NOD_", extra="ignore", validate_by_name=True)

    database_url: str = Field(
        "postgresql+psycopg://postgres@127.0.0.1:5432/nod", validation_alias=shared("database_url")
    )
    # Callers present it as `authorization: Bearer <token>`.
    service_token: SecretStr = Field(validation_alias=shared("service_token"))
    # Stable across restarts of the same instance: "its own records" (G12).
    instance_id: str = Field(
        default_factory=socket.gethostname,
        min_length=1,
        max_length=128,
        validation_alias=shared("instance_id"),
    )
    log_level: str = Field("INFO", validation_alias=shared("log_level"))
    log_format: str = Field("json", validation_alias=shared("log_format"))  # or "console"
    db_pool_size: int = Field(10, gt=0, validation_alias=shared("db_pool_size"))
    db_statement_timeout_ms: int = Field(
        5000, gt=0, validation_alias=shared("db_statement_timeout_ms")
    )
    db_connect_timeout_s: int = Field(5, gt=0, validation_alias=shared("db_connect_timeout_s"))
    # How long in-flight calls may finish after SIGTERM before they are cancelled.
    shutdown_grace_s: float = Field(10.0, ge=0, validation_alias=shared("shutdown_grace_s"))
    # While migrations are behind, health stays NOT_SERVING and this is how
    # often the service looks again.
    migration_poll_s: float = Field(2.0, gt=0, validation_alias=shared("migration_poll_s"))
