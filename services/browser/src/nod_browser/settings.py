from pydantic import Field
from pydantic_settings import SettingsConfigDict

from nodkit.settings import ServiceSettings, shared


class BrowserSettings(ServiceSettings):
    model_config = SettingsConfigDict(env_prefix="NOD_BROWSER_")

    listen: str = "0.0.0.0:50054"
    claims_addr: str = Field("127.0.0.1:50051", validation_alias=shared("claims_addr"))
    # Empty: Debian's chromium found on PATH.
    chromium: str = ""
    # Well inside the claims service's lease ttl (30 s by default).
    lease_renew_s: float = Field(10.0, gt=0)
    claims_timeout_s: float = Field(5.0, gt=0)
    # Navigate, click, fill, read: each gives up after this.
    action_timeout_s: float = Field(15.0, gt=0)
    # An entry's end the claims service did not record is told again after
    # this, then after twice as long each time, up to end_retry_max_s.
    end_retry_first_s: float = Field(1.0, gt=0)
    end_retry_max_s: float = Field(30.0, gt=0)
    # A whole private entry (fill + submit) after its grant.
    entry_timeout_s: float = Field(30.0, gt=0)
    # How long a site may take to answer a form submission.
    request_timeout_s: float = Field(60.0, gt=0)
    max_sessions: int = Field(32, gt=0)
    max_page_text: int = Field(20_000, gt=0)
    # A read after a submission waits at most this long, once the page has
    # loaded, for its network to go quiet.
    settle_s: float = Field(3.0, gt=0)
