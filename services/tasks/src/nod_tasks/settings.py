from urllib.parse import urlsplit

from pydantic import Field, SecretStr, field_validator
from pydantic_settings import SettingsConfigDict

from nodkit.settings import DEFAULT_ADDRESSES, ServiceSettings, peer_address, shared

DAY_S = 24 * 3600


class TasksSettings(ServiceSettings):
    model_config = SettingsConfigDict(env_prefix="NOD_TASKS_")

    listen: str = DEFAULT_ADDRESSES["tasks"]
    claims_addr: str = peer_address("claims")
    approvals_addr: str = peer_address("approvals")
    payments_addr: str = peer_address("payments")
    browser_addr: str = peer_address(
        "browser",
        "host:port where the browser service answers, or each of its replicas'"
        " host:port, comma-separated: a session is opened on each in turn and every later call"
        " for it goes to the replica that holds it (its id in the tasks service names it).",
    )
    model_url: str = Field(
        "",
        validation_alias=shared("model_url"),
        description="An OpenAI-compatible provider's base URL (`/chat/completions` is added);"
        " empty: the scripted planner drives the demo tasks.",
    )
    model_api_key: SecretStr | None = Field(
        None,
        validation_alias=shared("model_api_key"),
        description="The provider's API key, sent as a bearer token; unset: none sent.",
    )
    model_name: str = Field(
        "gpt-4o-mini",
        validation_alias=shared("model_name"),
        description="The model asked for in each request to the provider.",
    )
    model_timeout_s: float = Field(
        60.0,
        gt=0,
        description="One attempt's whole wait for the model's answer (a read timeout is"
        " temporary and tried again).",
    )
    max_running: int = Field(
        8,
        ge=0,
        description="How many tasks this instance runs at once; the rest wait in the queue."
        " 0: it runs none (it only answers calls; other instances run the tasks).",
    )
    # Each model request (its retries included) and each tool call gets this
    # long afresh, so it is longer than the longest legitimate one: a
    # request's four attempts of model_timeout_s with up to a minute's wait
    # between them (420 s), a private entry's entry_timeout_s with the peer
    # calls around it. A WAITING task has no run to cut.
    step_deadline_s: float = Field(
        480.0,
        gt=0,
        description="A run that makes no progress this long is cut off the way a Stop cuts it:"
        " its step in flight ends as cut off (UNCERTAIN when it may have acted), the task"
        " INTERRUPTED, never retried.",
    )
    max_steps_per_run: int = Field(
        40,
        gt=0,
        description="A run that makes more tool calls than this ends FAILED (a model in a loop).",
    )
    # An item saved meanwhile shows within it; one deleted is refused by the
    # claims service when claimed.
    context_max_age_s: float = Field(
        2.0,
        ge=0,
        description="The person's saved items and apps, as the model is told of them, are read"
        " at a run's start and again once the last read is older than this (0: for every"
        " model request).",
    )
    # Rarely: each look costs an idle instance a transaction.
    poll_s: float = Field(
        30.0,
        gt=0,
        description="The background loops wake when what they wait for is announced on any"
        " instance (LISTEN/NOTIFY): the queue when a task is queued or stopped, the outside"
        " waits when a task starts waiting on one, the ends to tell when a task ends. Each"
        " also looks this often in case a notice was missed.",
    )
    outside_waits_poll_s: float = Field(
        0.4,
        gt=0,
        description="How often the tasks waiting on a decision or a payment (answered in other"
        " services) are looked at.",
    )
    bank_wait_s: float = Field(
        600.0,
        gt=0,
        description="How long a payment whose bank asks the person to confirm it (3-D Secure)"
        " is waited for before its step ends UNCERTAIN.",
    )
    outside_waits_batch: int = Field(
        200,
        gt=0,
        description="How many waiting tasks one round looks at; the next round goes on from"
        " there, so every one is looked at in turn.",
    )
    lease_ttl_s: float = Field(
        30.0,
        gt=0,
        description="This instance renews its lease every ttl/3; past the ttl its RUNNING"
        " tasks are swept to INTERRUPTED by any other instance.",
    )
    sweep_interval_s: float = Field(
        5.0,
        gt=0,
        description="How often lapsed instances' RUNNING tasks and steps are swept.",
    )
    peer_timeout_s: float = Field(
        15.0,
        gt=0,
        description="The deadline of a call to another service (a private entry's:"
        " NOD_TASKS_ENTRY_TIMEOUT_S).",
    )
    entry_timeout_s: float = Field(
        90.0,
        gt=0,
        description="The deadline of a private entry (the browser fills and submits, then"
        " reads the page), which takes longer than other calls.",
    )
    browser_session_wait_s: float = Field(
        60.0,
        ge=0,
        description="How long a step waits for a place in the browser when every replica's"
        " sessions are taken (NOD_BROWSER_MAX_SESSIONS), before it fails saying so.",
    )
    # A notice can be missed (the listening connection was down).
    watch_poll_s: float = Field(
        2.0,
        gt=0,
        description="WatchTask looks again when a task's new event is announced (any"
        " instance's, LISTEN/NOTIFY), and at least this often.",
    )
    # A resend after a lost answer comes within seconds or minutes; a month
    # leaves room for a page left open for days.
    request_ids_keep_s: int = Field(
        30 * DAY_S,
        gt=0,
        description="The request ids of Continue are deleted once older than this; a resend"
        " after that, finding the task ended, would start another run.",
    )
    prune_interval_s: float = Field(
        3600.0,
        gt=0,
        description="How often request ids past their keep are deleted.",
    )
    # A picture of a text page is 30-150 KB: the default keeps the pages of
    # a long task (a run's 40 steps, and a Continue or two).
    screenshot_bytes_per_task: int = Field(
        8 * 1024 * 1024,
        ge=0,
        description="After each step that changes or reads a page, the browser's picture of it"
        " (private fields and shown-back private values painted over) is kept with the step for"
        " the person to see, for as long as the task; never sent to the model. A task's"
        " pictures take at most this many bytes: past it, later ones are not kept (a log line"
        " says so). 0: no pictures are taken.",
    )
    kept_sessions_per_person: int = Field(
        4,
        ge=0,
        description="Ended tasks of one person that keep their browser session for a look"
        " (a step that may have happened, unchecked): past this many, the oldest ones' sessions"
        " close, freeing the runner's places; a look at one of those has nothing to read.",
    )
    look_timeout_s: float = Field(
        30.0,
        gt=0,
        description="How long one read-only look (Look for me) may take at one page, its"
        " settling and its picture included.",
    )
    screenshot_timeout_s: float = Field(
        3.0,
        gt=0,
        description="How long a step's picture may take (taken while the model is asked for the"
        " next step); past it, or when it fails, the step goes on without one.",
    )
    # Small batches keep each delete's locks and WAL short beside the tasks.
    prune_batch: int = Field(1000, gt=0, description="Rows one delete statement removes at most.")

    @field_validator("model_url")
    @classmethod
    def _model_url_is_http(cls, url: str) -> str:
        """Caught at start: without a scheme every task would fail late, as
        "the connection broke"."""
        parts = urlsplit(url)
        if url and (parts.scheme not in ("http", "https") or not parts.hostname):
            raise ValueError(
                "must be the provider's http(s) base URL, e.g. https://api.example.com/v1"
            )
        return url
