from pydantic import AliasChoices, Field

from nodkit.settings import ServiceSettings


def env(name: str, field: str) -> AliasChoices:
    # The NOD_* name in the environment; the field name for code and tests.
    return AliasChoices(name, field)


class BrowserSettings(ServiceSettings):
    listen: str = Field("0.0.0.0:50054", validation_alias=env("NOD_BROWSER_LISTEN", "listen"))
    claims_addr: str = Field(
        "127.0.0.1:50051", validation_alias=env("NOD_CLAIMS_ADDR", "claims_addr")
    )
    # Empty: Debian's chromium found on PATH.
    chromium_path: str = Field("", validation_alias=env("NOD_BROWSER_CHROMIUM", "chromium_path"))
    # Well inside the claims service's lease ttl (30 s by default).
    lease_renew_interval_s: float = Field(
        10.0, gt=0, validation_alias=env("NOD_BROWSER_LEASE_RENEW_S", "lease_renew_interval_s")
    )
    claims_timeout_s: float = Field(
        5.0, gt=0, validation_alias=env("NOD_BROWSER_CLAIMS_TIMEOUT_S", "claims_timeout_s")
    )
    # Navigate, click, fill, read: each gives up after this.
    action_timeout_s: float = Field(
        15.0, gt=0, validation_alias=env("NOD_BROWSER_ACTION_TIMEOUT_S", "action_timeout_s")
    )
    # A whole private entry (fill + submit) after its grant.
    entry_timeout_s: float = Field(
        30.0, gt=0, validation_alias=env("NOD_BROWSER_ENTRY_TIMEOUT_S", "entry_timeout_s")
    )
    # How long a site may take to answer a form submission.
    request_timeout_s: float = Field(
        60.0, gt=0, validation_alias=env("NOD_BROWSER_REQUEST_TIMEOUT_S", "request_timeout_s")
    )
    max_sessions: int = Field(
        32, gt=0, validation_alias=env("NOD_BROWSER_MAX_SESSIONS", "max_sessions")
    )
    max_page_text: int = Field(
        20_000, gt=0, validation_alias=env("NOD_BROWSER_MAX_PAGE_TEXT", "max_page_text")
    )
