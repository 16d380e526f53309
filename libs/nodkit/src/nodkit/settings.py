"""The settings every service shares, read from NOD_* environment variables.

Each service subclasses ServiceSettings once (settings.py) with its own
prefix, NOD_<SERVICE>_ (so one shared environment, as under `make run`, can't
hand one service's lease ttl to another), builds it once in __main__ and
passes it down; nothing else reads os.environ. The shared settings below keep
their documented names (NOD_DATABASE_URL, NOD_SERVICE_TOKEN, NOD_TLS_CERT_FILE,
...). Code and tests may also pass any setting by its field name.

Any setting NOD_<NAME> may instead be read from a file named by
NOD_<NAME>_FILE, the way Kubernetes mounts a Secret (NOD_VAULT_KEY_FILE,
NOD_SERVICE_TOKENS_FILE, NOD_DATABASE_URL_FILE for a URL with a password).
When both are set, the file wins: a mounted Secret is the deliberate choice,
a stray variable from an image or a ConfigMap is not.
"""

import os
import pathlib
import socket
from collections.abc import Mapping
from typing import Annotated, Any, Self

from pydantic import (
    AfterValidator,
    AliasChoices,
    Field,
    SecretStr,
    field_validator,
    model_validator,
)
from pydantic_settings import (
    BaseSettings,
    EnvSettingsSource,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
)

from nodkit import faults
from nodkit.callers import Callers, parse_service_tokens
from nodkit.crypto import key_ring_problem
from nodkit.logging import LogColor, LogFormat
from nodkit.tls import Tls

FILE_SUFFIX = "_FILE"
LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
# The spellings of a PostgreSQL URL people write (libpq's, Heroku's, the
# psycopg2 default): all mean the one driver nod uses.
POSTGRES_SCHEMES = ("postgres://", "postgresql://", "postgresql+psycopg2://")
OUR_SCHEME = "postgresql+psycopg://"


class SettingFileError(ValueError):
    """A NOD_<NAME>_FILE that names no readable, non-empty file."""


def read_setting_file(variable: str, path: str) -> str:
    """The file's text without its trailing newline (`echo > file` and most
    editors add one; no secret ends in one). An unreadable or empty file is
    an error that names the variable, never a silent empty secret."""
    try:
        text = pathlib.Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise SettingFileError(f"{variable}={path}: can't read it ({error})") from None
    value = text.rstrip("\r\n")
    if not value:
        raise SettingFileError(f"{variable}={path}: the file is empty")
    return value


class SettingFilesSource(EnvSettingsSource):
    """The environment source again, fed NOD_<NAME> = the contents of the file
    NOD_<NAME>_FILE names, so aliases, prefixes and parsing work exactly as
    for the variable itself. Own code rather than pydantic-settings'
    secrets_dir: that reads one folder of files named after the fields,
    while Kubernetes and the usual *_FILE convention name each file per
    variable."""

    def _load_env_vars(self) -> Mapping[str, str | None]:
        names = {
            env_name
            for field_name, field in self.settings_cls.model_fields.items()
            for _, env_name, _ in self._extract_field_info(field, field_name)
        }
        values: dict[str, str | None] = {}
        for variable, path in os.environ.items():
            if not variable.upper().endswith(FILE_SUFFIX):
                continue
            name = self._apply_case_sensitive(variable[: -len(FILE_SUFFIX)])
            # Only a setting's own name: NOD_APPROVALS_SMTP_CA_FILE is a
            # setting itself (a path), not the file of a NOD_APPROVALS_SMTP_CA.
            if name in names:
                values[name] = read_setting_file(variable, path)
        return values


def _a_key_ring(value: SecretStr) -> SecretStr:
    # Said at start in one line, before anything is opened.
    problem = key_ring_problem(value.get_secret_value())
    if problem:
        raise ValueError(problem)
    return value


# NOD_VAULT_KEY of a service that seals values at rest (claims, approvals):
# a whole key ring, or the service does not start.
VaultKey = Annotated[SecretStr, AfterValidator(_a_key_ring)]


def shared(name: str) -> AliasChoices:
    """A setting every service reads under the same name."""
    return AliasChoices(f"NOD_{name.upper()}")


# Where each service listens unless told (its `listen`), and so where its
# callers look for it (NOD_<SERVICE>_ADDR).
DEFAULT_ADDRESSES = {
    "claims": "127.0.0.1:50051",
    "approvals": "127.0.0.1:50052",
    "payments": "127.0.0.1:50053",
    "browser": "127.0.0.1:50054",
    "tasks": "127.0.0.1:50055",
}


def peer_address(service: str, description: str = "") -> Any:
    """The setting naming where `service` answers, read under the same name
    (NOD_<SERVICE>_ADDR) by every service that calls it."""
    return Field(
        DEFAULT_ADDRESSES[service],
        validation_alias=shared(f"{service}_addr"),
        description=description
        or f"Where the {service} service answers: host:port (one replica); dns:///NAME:PORT"
        " (calls spread over every address the name resolves to, as a headless Service's"
        " pods); or its replicas' IP:port, comma-separated.",
    )


class ServiceSettings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="NOD_", extra="ignore", validate_by_name=True)

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        """Arguments, then NOD_<NAME>_FILE, then NOD_<NAME>: the file wins."""
        return init_settings, SettingFilesSource(settings_cls), env_settings

    # Every field carries a description: docs/CONFIGURATION.md is generated
    # from them (scripts/config_reference.py, `make config-docs`).

    # Each service sets its port; loopback unless told otherwise (a pod's
    # manifest sets 0.0.0.0).
    listen: str = Field(
        "127.0.0.1:0",
        description="host:port this service's gRPC server listens on (port 0: any free port).",
    )
    # For probes that speak no TLS, such as the kubelet's native gRPC probe.
    health_listen: str | None = Field(
        None,
        validation_alias=shared("health_listen"),
        description="host:port of a second, plaintext listener answering grpc.health.v1 only"
        " (its `liveness` name is SERVING while the process answers); unset: none. The"
        " gateway has none: it answers GET /healthz.",
    )
    metrics_listen: str = Field(
        "",
        description="host:port where GET /metrics is served for Prometheus; empty: not served."
        " Per service like `listen` (NOD_<SERVICE>_METRICS_LISTEN).",
    )
    database_url: str = Field(
        "postgresql+psycopg://postgres@127.0.0.1:5432/nod",
        validation_alias=shared("database_url"),
        description="The PostgreSQL server (SQLAlchemy URL, psycopg driver); each service uses"
        " its own schema in it. A URL with a password belongs in NOD_DATABASE_URL_FILE.",
    )
    # Presented as `authorization: Bearer <token>`: the single token may call
    # every method; each service's own token only what nodkit.callers allows it.
    service_token: SecretStr | None = Field(
        None,
        validation_alias=shared("service_token"),
        description="The single token that may call every method (scripts, grpcurl, one"
        " machine). This, NOD_SERVICE_TOKENS or mutual TLS is required.",
    )
    service_tokens: SecretStr | None = Field(
        None,
        validation_alias=shared("service_tokens"),
        description="Each calling service's own token, `name:token,name:token`"
        " (browser, tasks, gateway, payments, ...); each may call only what"
        " nodkit/callers.py allows it.",
    )
    # TLS on every gRPC hop this service serves or makes (nodkit.tls).
    tls_cert_file: str | None = Field(
        None,
        validation_alias=shared("tls_cert_file"),
        description="This service's certificate (PEM; subject CN and a DNS name: the service's"
        " name), as server and client. Set with NOD_TLS_KEY_FILE and NOD_TLS_CA_FILE, or none"
        " of them for plaintext.",
    )
    tls_key_file: str | None = Field(
        None,
        validation_alias=shared("tls_key_file"),
        description="The private key of NOD_TLS_CERT_FILE (PEM).",
    )
    tls_ca_file: str | None = Field(
        None,
        validation_alias=shared("tls_ca_file"),
        description="The CA (PEM) that issued every service's certificate; the only one trusted.",
    )
    tls_require_client_cert: bool = Field(
        False,
        validation_alias=shared("tls_require_client_cert"),
        description="Mutual TLS: a caller without a certificate from the CA is refused at the"
        " handshake, and the certificate's CN names the calling service. Needs the"
        " NOD_TLS_*_FILE settings.",
    )
    tls_accept_tokens: bool = Field(
        True,
        validation_alias=shared("tls_accept_tokens"),
        description="Whether a bearer token is still taken; false (needs"
        " NOD_TLS_REQUIRE_CLIENT_CERT=true): the certificate alone names the caller.",
    )
    instance_id: str = Field(
        default_factory=socket.gethostname,
        min_length=1,
        max_length=128,
        validation_alias=shared("instance_id"),
        description="Names this instance as the owner of the records it runs; keep it stable"
        " across restarts of the same instance (a pod's name), so a restart ends only its own"
        " cut-off work (G12).",
    )
    log_level: str = Field(
        "INFO",
        validation_alias=shared("log_level"),
        description="The lowest level logged: DEBUG (every call), INFO (slow or failed calls),"
        " WARNING, ERROR.",
    )
    log_format: LogFormat = Field(
        LogFormat.AUTO,
        validation_alias=shared("log_format"),
        description="`auto`: aligned, coloured lines on a terminal, one JSON object a line"
        " anywhere else (a pipe, a file, a collector); `console` or `json` force one.",
    )
    log_color: LogColor = Field(
        LogColor.AUTO,
        validation_alias=shared("log_color"),
        description="Colours in the console format: `auto` (on a terminal), `always`, `never`.",
    )
    # OpenTelemetry's own name for it, which collectors' docs use.
    otlp_endpoint: str | None = Field(
        None,
        validation_alias=AliasChoices("OTEL_EXPORTER_OTLP_ENDPOINT"),
        description="Where traces go, OTLP over gRPC (`http://collector:4317` in plaintext,"
        " `https://` over TLS); unset: no tracing at all.",
    )
    db_pool_size: int = Field(
        10,
        gt=0,
        validation_alias=shared("db_pool_size"),
        description="Database connections this process keeps open at most (the claims service"
        " has a second pool of this size for its hot path); a call finding none free waits"
        " up to NOD_DB_STATEMENT_TIMEOUT_MS.",
    )
    db_statement_timeout_ms: int = Field(
        5000,
        gt=0,
        validation_alias=shared("db_statement_timeout_ms"),
        description="The server cancels any statement running longer (PostgreSQL's"
        " statement_timeout); also the longest wait for a free pooled connection.",
    )
    db_connect_timeout_s: int = Field(
        5,
        gt=0,
        validation_alias=shared("db_connect_timeout_s"),
        description="How long opening a database connection may take.",
    )
    # Whatever the process holding it does: a hung holder's locks are freed.
    db_idle_in_transaction_timeout_ms: int = Field(
        20_000,
        gt=0,
        validation_alias=shared("db_idle_in_transaction_timeout_ms"),
        description="The server ends a session whose transaction sits idle this long (its"
        " holder hung or lost track of it), so its locks never block others for longer.",
    )
    # A frozen server acknowledges packets and answers nothing: only the
    # client's own bound ends the wait.
    db_call_timeout_s: float = Field(
        10.0,
        gt=0,
        validation_alias=shared("db_call_timeout_s"),
        description="No transaction takes longer than this on the client's side, whatever the"
        " server does.",
    )
    shutdown_grace_s: float = Field(
        10.0,
        ge=0,
        validation_alias=shared("shutdown_grace_s"),
        description="After SIGTERM, how long in-flight calls may finish before they are"
        " cancelled; keep it inside the pod's termination grace period.",
    )
    migration_poll_s: float = Field(
        2.0,
        gt=0,
        validation_alias=shared("migration_poll_s"),
        description="While the schema is behind its migrations, health says NOT_SERVING and"
        " the service looks again this often.",
    )
    notices_retry_s: float = Field(
        1.0,
        gt=0,
        validation_alias=shared("notices_retry_s"),
        description="How soon a lost LISTEN connection (PostgreSQL notices) is opened again;"
        " meanwhile the loops and watches that wait on notices look on their own.",
    )
    health_probe_s: float = Field(
        2.0,
        gt=0,
        validation_alias=shared("health_probe_s"),
        description="How often health asks the database (or another dependency) whether it"
        " answers; one not answering within it makes health NOT_SERVING.",
    )
    # Empty, as in every deployment, costs nothing.
    faults: str = Field(
        "",
        validation_alias=shared("faults"),
        description="For tests and `make soak` only: fault points this process acts on,"
        " `name=kill|raise|delay:S|hang[#hit]`, comma-separated (docs/FAULTS.md).",
    )

    @field_validator("log_level")
    @classmethod
    def _log_level_is_known(cls, level: str) -> str:
        if level.upper() not in LOG_LEVELS:
            raise ValueError(f"must be one of {', '.join(LOG_LEVELS)}")
        return level.upper()

    @field_validator("database_url")
    @classmethod
    def _database_url_is_postgres(cls, url: str) -> str:
        for spelling in POSTGRES_SCHEMES:
            if url.startswith(spelling):
                return OUR_SCHEME + url.removeprefix(spelling)
        if not url.startswith(OUR_SCHEME):
            raise ValueError(
                "must be a PostgreSQL URL, e.g. postgresql+psycopg://user@host:5432/nod"
            )
        return url

    @model_validator(mode="after")
    def _tls_is_whole(self) -> Self:
        files = (self.tls_cert_file, self.tls_key_file, self.tls_ca_file)
        if any(files) and not all(files):
            raise ValueError("set NOD_TLS_CERT_FILE, NOD_TLS_KEY_FILE and NOD_TLS_CA_FILE together")
        if self.tls_require_client_cert and not all(files):
            raise ValueError("NOD_TLS_REQUIRE_CLIENT_CERT needs the NOD_TLS_*_FILE settings")
        if not self.tls_accept_tokens and not self.tls_require_client_cert:
            raise ValueError(
                "NOD_TLS_ACCEPT_TOKENS=false needs NOD_TLS_REQUIRE_CLIENT_CERT=true:"
                " without either, no caller could be told apart"
            )
        return self

    @model_validator(mode="after")
    def _faults_are_known(self) -> Self:
        faults.parse(self.faults)
        return self

    @model_validator(mode="after")
    def _has_a_credential(self) -> Self:
        self.callers()
        return self

    def callers(self) -> Callers:
        tokens = self.service_tokens.get_secret_value() if self.service_tokens else ""
        return Callers(
            everything=self.service_token,
            services=parse_service_tokens(tokens),
            accept_tokens=self.tls_accept_tokens,
            certificates=self.tls_require_client_cert,
        )

    def own_token(self, service: str) -> SecretStr | None:
        """What this service presents when it calls another: its own token
        from NOD_SERVICE_TOKENS, else the single NOD_SERVICE_TOKEN; none when
        its certificate alone names it (mutual TLS without tokens)."""
        tokens = self.service_tokens.get_secret_value() if self.service_tokens else ""
        own = parse_service_tokens(tokens).get(service) or self.service_token
        if own is None and not self.tls_require_client_cert:
            raise ValueError(f"no token for {service}: set NOD_SERVICE_TOKENS or NOD_SERVICE_TOKEN")
        return own

    def tls(self) -> Tls | None:
        """This service's TLS material, read from its files (at start, by
        the server and each peer's channel); None for plaintext."""
        if not (self.tls_cert_file and self.tls_key_file and self.tls_ca_file):
            return None
        return Tls.from_files(
            self.tls_cert_file,
            self.tls_key_file,
            self.tls_ca_file,
            require_client_cert=self.tls_require_client_cert,
        )
