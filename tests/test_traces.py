"""Traces across every hop, as an operator with a collector sees them: the
whole system under `make run` exports over OTLP/gRPC to a real receiver on
loopback, and a demo purchase started from the web UI makes one trace that
leads from the gateway's request through the tasks service's run, its tool
call and the browser's EnterPrivate to the claims service's statement.
Every span received is scanned for private values with the rest of the
session's observations (nodtest.leak_scan)."""

import re
import uuid

import httpx
import pytest

from nod.tasks.v1 import tasks_pb2 as pb
from nodtest import observed
from nodtest.demo_task import drive_demo_task
from nodtest.make_run import MakeRun
from nodtest.otlp import OtlpReceiver, ReceivedSpan

from .test_make_run import ROOT, shop_counts

pytestmark = pytest.mark.slow
FORGED_TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736"
FORGED_TRACEPARENT = f"00-{FORGED_TRACE_ID}-00f067aa0ba902b7-01"


def signed_in(run: MakeRun) -> httpx.Client:
    client = httpx.Client(base_url=run.gateway_url, timeout=30)
    form = client.get("/signin").text
    binding = re.search(r'name="binding" value="([^"]+)"', form).group(1)  # type: ignore[union-attr]
    signed = client.post(
        "/signin",
        data={"binding": binding, "name": "ada", "password": run.web_password(), "next": "/"},
    )
    assert signed.status_code == 303, signed.text
    return client


def start_from_the_web_ui(client: httpx.Client, text: str) -> str:
    page = client.get("/tasks").text
    csrf = re.search(r'name="csrf" value="([^"]+)"', page).group(1)  # type: ignore[union-attr]
    started = client.post(
        "/tasks", data={"csrf": csrf, "text": text, "request_id": uuid.uuid4().hex}
    )
    assert started.status_code == 303, started.text
    return started.headers["location"].rsplit("/", 1)[1]


def services_of(spans: list[ReceivedSpan]) -> list[str]:
    return [span.service for span in spans]


async def test_one_trace_from_the_web_request_to_the_claim_statement(tmp_path):
    receiver = OtlpReceiver()
    endpoint = await receiver.start()
    observed.keep_source(
        "otlp: spans received", lambda: "\n".join(s.text() for s in receiver.spans)
    )
    run = MakeRun(
        ROOT,
        tmp_path / "var",
        f"nod_test_run_{uuid.uuid4().hex[:8]}",
        OTEL_EXPORTER_OTLP_ENDPOINT=endpoint,
        OTEL_BSP_SCHEDULE_DELAY="200",
    )
    try:
        stand_ins = run.start()
        client = signed_in(run)
        try:
            task_id = start_from_the_web_ui(client, "Buy the desk lamp at the demo shop")
            # A caller that is no proxy of the operator's names a trace.
            client.get("/vault", headers={"traceparent": FORGED_TRACEPARENT})
        finally:
            client.close()
        task = await drive_demo_task(run, task_id)
        assert task.state == pb.TASK_STATE_DONE, task.message
        assert shop_counts(stand_ins["shop"]) == {"login": 1, "otp": 1, "checkout": 1}

        statements = await receiver.wait_for(
            lambda s: s.name == "claims.claim_statement" and s.service == "nod-claims"
        )
        # The saved login's claim: its chain leads back to the web request.
        chains = [receiver.chain(statement) for statement in statements]
        from_the_web = [c for c in chains if c[-1].service == "nod-gateway"]
        assert from_the_web, [services_of(c) for c in chains]
        chain = from_the_web[0]
        names = [span.name for span in chain]
        assert chain[-1].name == "POST /tasks", names
        for hop in ("task.run", "tool enter_saved_login"):
            assert hop in names, names
        assert {"nod-gateway", "nod-tasks", "nod-browser", "nod-claims"} <= set(services_of(chain))
        assert any(span.name.endswith("BrowserService/EnterPrivate") for span in chain), names
        assert any(span.name.endswith("ClaimsService/Claim") for span in chain), names

        trace = receiver.trace(chain[0].trace_id)
        # The model request (its HTTP call) and SQLAlchemy's statements are in it too.
        assert any(span.name == "model.request" for span in trace)
        assert any("db.statement" in span.attributes for span in trace)
        # The request id every log line carries is the trace id.
        assert f'"request_id": "{chain[0].trace_id}"' in run.log_text()

        # The named trace is not joined: the request starts its own, and
        # the caller never chooses the request id of nod's log lines.
        (vault_page,) = await receiver.wait_for(lambda s: s.name == "GET /vault")
        assert vault_page.trace_id != FORGED_TRACE_ID and not vault_page.parent_span_id
        assert FORGED_TRACE_ID not in run.log_text()
    finally:
        run.stop()
        run.clean()
        await receiver.stop()
