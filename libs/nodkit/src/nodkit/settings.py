"""The settings every service shares, read from NOD_* environment variables.

Each service subclasses ServiceSettings once (settings.py), builds it once in
__main__ and passes it down; nothing else reads os.environ.
"""

import socket

from pydantic import Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict


class ServiceSettings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="NOD_", extra="ignore")

    database_url: str = "postgresql+psycopg://postgres@127.0.0.1:5432/nod"
    # Callers present it as `authorization: Bearer <token>`.
    service_token: SecretStr
    # Stable across restarts of the same instance: "its own records" (G12).
    instance_id: str = Field(default_factory=socket.gethostname, min_length=1, max_length=128)
    log_level: str = "INFO"
    log_format: str = "json"  # or "console"
    db_pool_size: int = 10
    db_statement_timeout_ms: int = 5000
    db_connect_timeout_s: int = 5
    # How long in-flight calls may finish after SIGTERM before they are cancelled.
    shutdown_grace_s: float = 10.0
    # While migrations are behind, health stays NOT_SERVING and this is how
    # often the service looks again.
    migration_poll_s: float = 2.0
