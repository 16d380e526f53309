from typing import Annotated

from pydantic import Field, field_validator
from pydantic_settings import NoDecode, SettingsConfigDict

from nodkit.networks import Network, parse_networks
from nodkit.settings import DEFAULT_ADDRESSES, ServiceSettings, peer_address


class BrowserSettings(ServiceSettings):
    model_config = SettingsConfigDict(env_prefix="NOD_BROWSER_")

    listen: str = DEFAULT_ADDRESSES["browser"]
    claims_addr: str = peer_address(
        "claims",
        "host:port where the claims service answers (the same name for every"
        " service that calls it).",
    )
    # Playwright never downloads a browser.
    chromium: str = Field(
        "",
        description="Path of the Chromium to run (the image sets"
        " /usr/bin/chromium-headless-shell); empty: `chromium-headless-shell`, `chromium` or"
        " `chromium-browser`, the first found on PATH.",
    )
    lease_renew_s: float = Field(
        10.0,
        gt=0,
        description="How often this runner renews its lease on the claims it holds; keep it"
        " well inside the claims service's NOD_CLAIMS_LEASE_TTL_S (30 s by default).",
    )
    claims_timeout_s: float = Field(
        5.0, gt=0, description="The deadline of each call to the claims service."
    )
    action_timeout_s: float = Field(
        15.0, gt=0, description="Each navigate, click, fill or read gives up after this."
    )
    end_retry_first_s: float = Field(
        1.0,
        gt=0,
        description="An entry's end the claims service did not record is told again after"
        " this, then after twice as long each time, up to NOD_BROWSER_END_RETRY_MAX_S.",
    )
    end_retry_max_s: float = Field(
        30.0,
        gt=0,
        description="The longest wait between two tellings of an unrecorded entry's end.",
    )
    entry_timeout_s: float = Field(
        30.0, gt=0, description="A whole private entry (fill and submit) after its grant."
    )
    request_timeout_s: float = Field(
        60.0, gt=0, description="How long a site may take to answer a form submission."
    )
    # A session lives in this runner's memory: more sessions than one runner
    # holds take another replica (listed in the tasks service's
    # NOD_BROWSER_ADDR), never a session moved between them.
    max_sessions: int = Field(
        32,
        gt=0,
        description="Open sessions (one isolated browser context each) this runner holds at"
        " most; one more is refused RESOURCE_EXHAUSTED (TOO_MANY_SESSIONS).",
    )
    session_idle_s: float = Field(
        1800.0,
        gt=0,
        description="A session no call has used for this long is closed (its page and"
        " memory freed). The tasks service closes a task's sessions when the task ends;"
        " this frees the ones a waiting task or a lost tasks service left open.",
    )
    max_page_text: int = Field(
        20_000,
        gt=0,
        description="Characters of a page's text a read returns at most; the rest is cut and"
        " the read says so.",
    )
    settle_s: float = Field(
        3.0,
        gt=0,
        description="A read after a submission waits at most this long, once the page has"
        " loaded, for its network to go quiet.",
    )
    # Every request of every session goes through the runner's address guard
    # (adapters/egress_proxy.py): public addresses only, so a page (or a
    # model told to open one) can't reach the cluster's inside.
    allowed_networks: Annotated[tuple[Network, ...], NoDecode] = Field(
        (),
        description="Networks (comma-separated CIDRs) the browser may reach besides public"
        " addresses, e.g. 127.0.0.2/31,127.0.0.4/30 for local test sites. Checked against the"
        " address each request connects to; nod's own addresses (127.0.0.1, the claims"
        " service's, the database's, this runner's) stay refused even inside them.",
    )
    egress_connect_timeout_s: float = Field(
        10.0,
        gt=0,
        description="How long the address guard waits for a site's name to resolve and its"
        " server to accept a connection.",
    )

    @field_validator("allowed_networks", mode="before")
    @classmethod
    def _networks(cls, value):
        return parse_networks(value) if isinstance(value, str) else value
