"""What an operator's Prometheus reads from every nod process: the metrics
themselves, in one place, so docs/OPERATING.md lists exactly these.

Counted as things happen (this module): every RPC by method and status code
with its latency, records ended UNCERTAIN, sweeps and reconciles with the
rows they touched, model requests and their retries. Read when scraped
(nodkit.metrics_collectors): records by state, the tasks queue, database
pools, browser sessions. Served by nodkit.metrics_server on a port of the
service's own (NOD_<SERVICE>_METRICS_LISTEN).

Label values are bounded and never private: a gRPC method name, a status
code's name, a route template, a state, a table's name. Never an id, a
path with ids in it, a person's name or anything a person typed.
"""

import prometheus_client
from prometheus_client import REGISTRY, Counter, Histogram

# A counter's `_created` sample is one more series per label set for a
# timestamp nobody alerts on.
prometheus_client.disable_created_metrics()

# 1 ms to 30 s: a claim takes a millisecond or two, an entry in Chromium
# seconds, a model request up to the model's timeout.
LATENCY_BUCKETS = (
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0,
)  # fmt: skip

RPC_CALLS = Counter(
    "nod_rpc_calls",
    "gRPC calls served, by full method name and status code name",
    ["method", "code"],
)
RPC_SECONDS = Histogram(
    "nod_rpc_duration_seconds",
    "Time from a call's arrival to its last reply, by full method name",
    ["method"],
    buckets=LATENCY_BUCKETS,
)
UNCERTAIN = Counter(
    "nod_uncertain",
    "Records ended UNCERTAIN since this process started, by table",
    ["record"],
)
SWEEPS = Counter(
    "nod_sweeps",
    "Sweeps and reconciles run, by service and kind (boot, sweep, ...)",
    ["service", "kind"],
)
SWEPT_ROWS = Counter(
    "nod_swept_rows",
    "Records a sweep or reconcile changed, by service and kind",
    ["service", "kind"],
)
HTTP_REQUESTS = Counter(
    "nod_http_requests",
    "Gateway requests answered, by route template, method and status code",
    ["route", "method", "status"],
)
HTTP_SECONDS = Histogram(
    "nod_http_request_duration_seconds",
    "Time from a gateway request's arrival to its answer's end (a live timeline's"
    " stream: how long it was watched), by route template and method",
    ["route", "method"],
    buckets=LATENCY_BUCKETS,
)
MODEL_REQUESTS = Counter(
    "nod_model_requests",
    "Attempts to ask the model, by provider and status (ok, an HTTP status, or a failure kind)",
    ["provider", "status"],
)
MODEL_RETRIES = Counter(
    "nod_model_retries",
    "Model attempts tried again after a temporary failure, by provider and the failure's status",
    ["provider", "status"],
)
EGRESS_REFUSED = Counter(
    "nod_browser_egress_refused",
    "Browser requests refused by the address guard, by rule (loopback, link_local,"
    " private, special, own, ...)",
    ["rule"],
)
ENTRY_REFUSALS = Counter(
    "nod_browser_entry_refusals",
    "Private entries the browser runner refused or stopped, by the rule that held (a field's"
    " kind or visibility, the submission's destination, a request carrying a value elsewhere)",
    ["rule"],
)


class RpcMetrics:
    """The interceptor's per-call work kept tiny (the claim hot path): each
    method's histogram child and each (method, code)'s counter child are
    bound once and reused, so a call costs two dict lookups, an increment
    and an observation."""

    def __init__(self) -> None:
        self._seconds: dict[str, object] = {}
        self._calls: dict[tuple[str, str], object] = {}

    def observe(self, method: str, code: str, seconds: float) -> None:
        calls = self._calls.get((method, code))
        if calls is None:
            calls = self._calls[(method, code)] = RPC_CALLS.labels(method, code)
        calls.inc()  # type: ignore[attr-defined]
        histogram = self._seconds.get(method)
        if histogram is None:
            histogram = self._seconds[method] = RPC_SECONDS.labels(method)
        histogram.observe(seconds)  # type: ignore[attr-defined]


rpc = RpcMetrics()


class HttpMetrics:
    """The gateway's per-request work, children bound once as RpcMetrics does."""

    def __init__(self) -> None:
        self._seconds: dict[tuple[str, str], object] = {}
        self._requests: dict[tuple[str, str, int], object] = {}

    def observe(self, route: str, method: str, status: int, seconds: float) -> None:
        requests = self._requests.get((route, method, status))
        if requests is None:
            requests = HTTP_REQUESTS.labels(route, method, str(status))
            self._requests[(route, method, status)] = requests
        requests.inc()  # type: ignore[attr-defined]
        histogram = self._seconds.get((route, method))
        if histogram is None:
            histogram = self._seconds[(route, method)] = HTTP_SECONDS.labels(route, method)
        histogram.observe(seconds)  # type: ignore[attr-defined]


http = HttpMetrics()


def count_uncertain(record: str, count: int = 1) -> None:
    if count:
        UNCERTAIN.labels(record).inc(count)


def count_sweep(service: str, kind: str, rows: int) -> None:
    """One sweep or reconcile of `kind`, and how many records it changed."""
    SWEEPS.labels(service, kind).inc()
    if rows:
        SWEPT_ROWS.labels(service, kind).inc(rows)


def count_entry_refusal(rule: str) -> None:
    """`rule`: one of the runner's few rule names (nod_browser.domain.field_rules)."""
    ENTRY_REFUSALS.labels(rule).inc()


def count_model_request(provider: str, status: str, *, retried: bool) -> None:
    MODEL_REQUESTS.labels(provider, status).inc()
    if retried:
        MODEL_RETRIES.labels(provider, status).inc()


def totals() -> dict[str, int]:
    """Every call counted since the process started, as "<method> <code>"
    -> count (tests and the soak read it; it takes nothing away)."""
    return {
        f"{sample.labels['method']} {sample.labels['code']}": int(sample.value)
        for family in RPC_CALLS.collect()
        for sample in family.samples
        if sample.name == "nod_rpc_calls_total"
    }


def sample_value(name: str, labels: dict[str, str] | None = None) -> float:
    """One sample's value in this process's registry (0 when absent)."""
    return REGISTRY.get_sample_value(name, labels or {}) or 0.0
