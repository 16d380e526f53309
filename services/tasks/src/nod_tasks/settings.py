from pydantic import Field, SecretStr
from pydantic_settings import SettingsConfigDict

from nodkit.settings import ServiceSettings, shared


class TasksSettings(ServiceSettings):
    model_config = SettingsConfigDict(env_prefix="NOD_TASKS_")

    listen: str = "127.0.0.1:50055"
    claims_addr: str = Field("127.0.0.1:50051", validation_alias=shared("claims_addr"))
    approvals_addr: str = Field("127.0.0.1:50052", validation_alias=shared("approvals_addr"))
    payments_addr: str = Field("127.0.0.1:50053", validation_alias=shared("payments_addr"))
    browser_addr: str = Field("127.0.0.1:50054", validation_alias=shared("browser_addr"))
    # An OpenAI-compatible provider (the base URL; /chat/completions is added).
    # Without one, the scripted planner drives the demo tasks.
    model_url: str = Field("", validation_alias=shared("model_url"))
    model_api_key: SecretStr | None = Field(None, validation_alias=shared("model_api_key"))
    model_name: str = Field("gpt-4o-mini", validation_alias=shared("model_name"))
    # One attempt's whole wait for the model's answer (a read timeout is temporary).
    model_timeout_s: float = Field(60.0, gt=0)
    # How many tasks this instance runs at once; the rest wait in the queue.
    # 0: it runs none (it only answers calls; other instances run the tasks).
    max_running: int = Field(8, ge=0)
    # A run that makes more tool calls than this ends FAILED (a model in a loop).
    max_steps_per_run: int = Field(40, gt=0)
    # What the model is told of the person's saved items and apps is read
    # at a run's start and again for a request once the last read is older
    # than this (0: for every request). An item saved meanwhile shows within
    # it; one deleted is refused by the claims service when claimed.
    context_max_age_s: float = Field(2.0, ge=0)
    # The queue wakes when a task is queued or stopped on any instance
    # (LISTEN/NOTIFY); it also looks this often in case a notice was missed.
    poll_s: float = Field(2.0, gt=0)
    # How often the tasks waiting on a decision or a payment (answered in
    # other services) are looked at.
    outside_waits_poll_s: float = Field(0.4, gt=0)
    # How long a payment whose bank asks the person to confirm it (3-D
    # Secure) is waited for before its step ends UNCERTAIN.
    bank_wait_s: float = Field(600.0, gt=0)
    # How many tasks waiting on a decision or a payment one round looks at;
    # the next round goes on from there, so every one is looked at in turn.
    outside_waits_batch: int = Field(200, gt=0)
    # This instance renews its lease every ttl/3; past the ttl its RUNNING
    # tasks are swept to INTERRUPTED by any other instance.
    lease_ttl_s: float = Field(30.0, gt=0)
    sweep_interval_s: float = Field(5.0, gt=0)
    # A call to another service; a private entry and an app action's yes take longer.
    peer_timeout_s: float = Field(15.0, gt=0)
    entry_timeout_s: float = Field(90.0, gt=0)
    # WatchTask looks again when a task's new event is announced (any
    # instance's, LISTEN/NOTIFY), and at least this often in case an
    # announcement was missed (the listening connection was down).
    watch_poll_s: float = Field(2.0, gt=0)
