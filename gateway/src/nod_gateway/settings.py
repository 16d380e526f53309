from typing import Annotated

from pydantic import Field, field_validator
from pydantic_settings import NoDecode, SettingsConfigDict

from nod_gateway.client_address import networks
from nodkit.settings import ServiceSettings, shared


class GatewaySettings(ServiceSettings):
    model_config = SettingsConfigDict(env_prefix="NOD_GATEWAY_")

    listen: str = "127.0.0.1:8080"
    claims_addr: str = Field("127.0.0.1:50051", validation_alias=shared("claims_addr"))
    approvals_addr: str = Field("127.0.0.1:50052", validation_alias=shared("approvals_addr"))
    payments_addr: str = Field("127.0.0.1:50053", validation_alias=shared("payments_addr"))
    tasks_addr: str = Field("127.0.0.1:50055", validation_alias=shared("tasks_addr"))
    # Every gRPC call has this deadline; a watch is cut after watch_s and the
    # browser reconnects from its last event.
    call_timeout_s: float = Field(5.0, gt=0)
    watch_s: float = Field(300.0, gt=0)
    # Cookies carry `Secure` when the gateway is reached over HTTPS (behind a
    # proxy that terminates it); `make run` serves plain HTTP on loopback.
    secure_cookies: bool = False
    session_ttl_s: int = Field(12 * 3600, gt=0)
    # Sign-in attempts: this many failures for one name, or ten times as many
    # from one address, within the window, and further tries wait.
    sign_in_failures: int = Field(5, gt=0)
    sign_in_window_s: int = Field(900, gt=0)
    # The proxies in front of the gateway (addresses or CIDR blocks, comma
    # separated): only their X-Forwarded-For is believed. None by default:
    # the connection's peer is the client.
    trusted_proxies: Annotated[tuple[str, ...], NoDecode] = ()

    @field_validator("trusted_proxies", mode="before")
    @classmethod
    def _comma_separated(cls, value: object) -> object:
        if isinstance(value, str):
            value = tuple(part.strip() for part in value.split(",") if part.strip())
        networks(value)  # type: ignore[arg-type]
        return value
