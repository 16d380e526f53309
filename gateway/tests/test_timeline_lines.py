"""The task page's timeline lines, built from hand-made events with no system
running: one line per step in words (never its tool's name or JSON, which
are folded under Details), keyed by the step's number so a later event of
the step replaces its line; model requests only when an attempt failed;
what the person said; the end with its outcome. A step with no claim,
approval or payment id asks no service."""

import json
import re
from types import SimpleNamespace

from google.protobuf.timestamp_pb2 import Timestamp

from nod.approvals.v1 import approvals_pb2 as approvals
from nod.claims.v1 import claims_pb2 as claims
from nod.payments.v1 import payments_pb2 as payments
from nod.tasks.v1 import tasks_pb2 as tasks
from nod_gateway import timeline
from nod_gateway.web import words
from nod_gateway.web.render import TEMPLATES

AT = Timestamp(seconds=1_750_000_000)
SHOP = "https://shop.example"
TOOLS = sorted({key.split("/")[0] for key in words.STEP_WORDS if key})


class NoServices:
    """A Nod that fails the test if any service is asked."""

    def __getattr__(self, name):
        raise AssertionError(f"a service was asked: {name}")


class Answers:
    """One service's canned answers, by method; every call is kept."""

    def __init__(self, calls: list, **replies):
        self._calls = calls
        self._replies = replies

    def __getattr__(self, method):
        async def call(request):
            self._calls.append((method, request))
            return self._replies[method]

        return call


def services(**by_service) -> tuple[SimpleNamespace, list]:
    calls: list = []
    nod = SimpleNamespace(**{name: Answers(calls, **r) for name, r in by_service.items()})
    return nod, calls


def step(number: int, tool: str, state: int = tasks.STEP_STATE_DONE, **facts) -> tasks.Step:
    arguments = facts.pop("arguments", {})
    return tasks.Step(
        number=number, tool=tool, state=state, arguments=json.dumps(arguments), **facts
    )


def event(number: int, kind: str, **fields) -> tasks.TaskEvent:
    return tasks.TaskEvent(number=number, kind=kind, at=AT, **fields)


def in_view(made: timeline.Line) -> str:
    """Everything a person sees without opening Details."""
    return " ".join(
        [made.title, made.detail, *made.extra, made.explanation]
        + [said for said, _ in ([made.badge] if made.badge else []) + made.more_badges]
    )


def assert_plain(made: timeline.Line) -> None:
    shown = in_view(made)
    for tool in TOOLS:
        # (A name of one word, "click", "pay", is a word the line may use.)
        assert "_" not in tool or tool not in shown, (tool, shown)
    assert not re.search(r"[{}\[\]]|\b[A-Z]{2,}(?:_[A-Z]+)+\b", shown), shown
    assert "new_action_reason" not in shown and "identical to step" not in shown


def described(made_step: tasks.Step, found: timeline.Found | None = None) -> timeline.Line:
    made = timeline.describe_step(made_step, found)
    assert made is not None
    assert_plain(made)
    return made


def test_a_step_is_said_in_words_from_its_facts():
    cases = [
        (
            step(1, "navigate", page_origin=SHOP, page_title="Sign in", arguments={"url": SHOP}),
            "Opened “Sign in”",
            "Worked",
        ),
        (
            step(2, "read_page", page_origin=SHOP, page_title="Desk lamp"),
            "Read the page “Desk lamp”",
            "Worked",
        ),
        (step(3, "click", page_title="Checkout"), "Clicked on “Checkout”", "Worked"),
        (
            step(4, "type_text", arguments={"target": "e3", "text": "hi"}),
            "Typed on the page",
            "Worked",
        ),
        (
            step(5, "enter_saved_login", page_origin=SHOP, check=tasks.ENTRY_CHECK_WORKED),
            f"Signed in to {SHOP} with your saved login — the site let you in",
            "Worked",
        ),
        (
            step(6, "enter_saved_login", page_origin=SHOP, check=tasks.ENTRY_CHECK_DID_NOT_WORK),
            f"Tried to sign in to {SHOP} with your saved login — the site didn't accept it",
            "Didn't work",
        ),
        (
            step(7, "enter_saved_login", page_origin=SHOP, check=tasks.ENTRY_CHECK_UNCLEAR),
            f"Tried to sign in to {SHOP} with your saved login"
            " — nod couldn't tell whether it worked",
            "Unclear",
        ),
        (
            step(
                8,
                "enter_from_private_form",
                form_kind=tasks.FORM_KIND_ONE_TIME_CODE,
                check=tasks.ENTRY_CHECK_DID_NOT_WORK,
            ),
            "Typed the one-time code you gave — the site didn't accept it",
            "Didn't work",
        ),
        (
            step(
                9,
                "ask_private_form",
                state=tasks.STEP_STATE_RUNNING,
                form_kind=tasks.FORM_KIND_ONE_TIME_CODE,
            ),
            "Asked you for the one-time code",
            "Waiting for you",
        ),
        (
            step(10, "ask_private_form", form_kind=tasks.FORM_KIND_LOGIN),
            "Asked you for a saved login or a password",
            "Answered",
        ),
        (
            step(
                11,
                "ask_person",
                state=tasks.STEP_STATE_RUNNING,
                arguments={"question": "Which colour?"},
            ),
            "Asked you: “Which colour?”",
            "Waiting for you",
        ),
        (
            step(12, "pay", paid=tasks.PAID_OUTCOME_DECLINED, page_origin=SHOP),
            f"Tried to pay to {SHOP} — the shop declined it",
            "Didn't work",
        ),
        (
            step(
                13, "navigate", state=tasks.STEP_STATE_RUNNING, arguments={"url": f"{SHOP}/x?y=1"}
            ),
            f"Opening {SHOP}",
            "Running",
        ),
        (step(14, "some_new_tool"), "Took a step", "Worked"),
    ]
    for made_step, title, badge in cases:
        made = described(made_step)
        assert (made.title, made.badge[0] if made.badge else None) == (title, badge)
        assert made.step == made_step.number and made.kind == "step"


def test_the_finish_is_no_line():
    assert timeline.describe_step(step(9, "finish", arguments={"message": "Done."})) is None


def test_why_a_step_didnt_go_through_is_a_sentence_and_the_models_text_is_folded():
    refused = step(
        4,
        "click",
        state=tasks.STEP_STATE_NOT_RUN,
        reason_code="REPEATS_A_STEP",
        reason="identical to step 3, which is never run again; give new_action_reason",
        arguments={"target": "e12"},
    )
    made = described(refused)
    assert made.title == "Tried to click on the page"
    assert made.badge == ("Not run", "quiet")
    assert made.detail == words.REASONS["REPEATS_A_STEP"]
    folded = dict(made.folded)
    assert json.loads(folded[words.ARGUMENTS_LABEL]) == {"target": "e12"}
    assert "new_action_reason" in folded[words.REASON_LABEL]
    # A code the page doesn't know: a plain sentence, never the code.
    odd = described(
        step(5, "click", state=tasks.STEP_STATE_FAILED, reason_code="SOMETHING_NEW_HERE")
    )
    assert odd.detail == words.STEP_FAILED_ANYWAY and odd.badge == ("Didn't work", "bad")


def test_an_ask_refused_before_it_reached_the_person_says_it_didnt_ask():
    refused = step(
        6,
        "ask_private_form",
        state=tasks.STEP_STATE_NOT_RUN,
        form_kind=tasks.FORM_KIND_ONE_TIME_CODE,
        reason_code="TOO_MANY_CODE_TRIES",
    )
    made = described(refused)
    assert made.title == "Didn't ask you for the one-time code"
    assert made.detail == words.REASONS["TOO_MANY_CODE_TRIES"]


def test_an_uncertain_step_says_what_it_means_until_the_person_checked():
    unsure = step(7, "click", state=tasks.STEP_STATE_UNCERTAIN)
    made = described(unsure)
    assert made.badge == ("May have happened", "check")
    assert made.explanation == words.UNCERTAIN_MEANS
    unsure.resolution = tasks.RESOLUTION_HAPPENED
    checked = described(unsure)
    assert checked.extra == ["You checked: it happened."] and not checked.explanation


async def test_a_step_with_no_ids_asks_no_service():
    for made_step in (
        step(1, "navigate", page_origin=SHOP, arguments={"url": SHOP}),
        step(2, "enter_saved_login", check=tasks.ENTRY_CHECK_WORKED),
        step(3, "pay", state=tasks.STEP_STATE_FAILED, arguments={"payment_id": "p-1"}),
    ):
        for kind in ("step.started", "step.ended"):
            made = await timeline.line(NoServices(), event(5, kind, step=made_step))  # type: ignore[arg-type]
            assert made is not None and made.number == 5
    for other in (
        event(
            6, "model.attempt", model_attempt=tasks.ModelAttempt(request=1, attempt=1, status=200)
        ),
        event(7, "task.queued", message="Continue.", person_words="Continue."),
        event(8, "task.ended", state=tasks.TASK_STATE_DONE),
    ):
        await timeline.line(NoServices(), other)  # type: ignore[arg-type]


async def test_a_pay_step_names_the_payment_its_claim_paid():
    payment = payments.Payment(
        id="p-1",
        merchant_origin=SHOP,
        amount_minor=2500,
        currency="EUR",
        card_label="•••• 4242",
        claim_id="c-1",
        state=payments.PAYMENT_STATE_SUBMITTED,
        outcome=payments.PAYMENT_OUTCOME_PAID,
    )
    claim = claims.Claim(
        id="c-1",
        kind=claims.ENTRY_KIND_CARD,
        origin=SHOP,
        state=claims.CLAIM_STATE_SUBMITTED,
        check=claims.CHECK_RESULT_WORKED,
    )
    nod, calls = services(
        payments={"GetPayment": payments.GetPaymentResponse(payment=payment)},
        claims={"GetClaim": claims.GetClaimResponse(claim=claim)},
    )
    paid = step(
        8, "pay", claim_id="c-1", paid=tasks.PAID_OUTCOME_PAID, arguments={"payment_id": "p-1"}
    )
    made = await timeline.line(nod, event(20, "step.ended", step=paid))  # type: ignore[arg-type]
    assert made is not None
    assert_plain(made)
    assert made.title == f"Paid 25.00 EUR to {SHOP} with •••• 4242 — the shop says paid"
    assert made.badge == ("Worked", "good") and made.more_badges == []
    assert words.ENTRY_LABEL in dict(made.folded)
    assert sorted(method for method, _ in calls) == ["GetClaim", "GetPayment"]
    # A payment whose card went in under another claim is not this step's.
    payment.claim_id = "c-other"
    nod, calls = services(
        payments={"GetPayment": payments.GetPaymentResponse(payment=payment)},
        claims={"GetClaim": claims.GetClaimResponse(claim=claim)},
    )
    made = await timeline.line(nod, event(20, "step.ended", step=paid))  # type: ignore[arg-type]
    assert made is not None and made.title == f"Paid to {SHOP} — the shop says paid"
    # Before its end is recorded, a payment knows its card entry's operation.
    payment.claim_id, payment.card_operation_id, claim.operation_id = "", "op-1", "op-1"
    nod, calls = services(
        payments={"GetPayment": payments.GetPaymentResponse(payment=payment)},
        claims={"GetClaim": claims.GetClaimResponse(claim=claim)},
    )
    made = await timeline.line(nod, event(20, "step.ended", step=paid))  # type: ignore[arg-type]
    assert made is not None and made.title.startswith("Paid 25.00 EUR")


async def test_asking_to_pay_and_to_run_an_action_show_what_you_decided():
    payment = payments.Payment(
        merchant_origin=SHOP,
        amount_minor=2500,
        currency="EUR",
        card_label="•••• 4242",
        state=payments.PAYMENT_STATE_AWAITING_CONFIRMATION,
    )
    nod, _ = services(payments={"GetPayment": payments.GetPaymentResponse(payment=payment)})
    asked = step(9, "request_payment", state=tasks.STEP_STATE_RUNNING, payment_id="p-1")
    made = await timeline.line(nod, event(21, "step.started", step=asked))  # type: ignore[arg-type]
    assert made is not None
    assert made.title == f"Asked you to pay 25.00 EUR to {SHOP} with •••• 4242"
    assert made.badge == ("Waiting for you", "ask")
    assert made.more_badges == [("Waiting for your decision", "ask")]

    approval = approvals.Approval(
        app="webhook",
        action="post",
        state=approvals.APPROVAL_STATE_APPROVED,
        execution_state=approvals.EXECUTION_STATE_DONE,
    )
    nod, _ = services(approvals={"GetApproval": approvals.GetApprovalResponse(approval=approval)})
    proposed = step(10, "propose_app_action", approval_id="a-1", arguments={"action": "post"})
    made = await timeline.line(nod, event(22, "step.ended", step=proposed))  # type: ignore[arg-type]
    assert made is not None
    assert_plain(made)
    assert made.title == "Asked you to run an app action"
    assert [made.badge, *made.more_badges] == [
        ("Worked", "good"),
        ("You said yes", "good"),
        ("Done", "good"),
    ]


def test_an_older_entry_step_takes_its_words_from_its_claim():
    claim = claims.Claim(
        kind=claims.ENTRY_KIND_ONE_TIME_CODE,
        origin=SHOP,
        state=claims.CLAIM_STATE_SUBMITTED,
        check=claims.CHECK_RESULT_WORKED,
    )
    older = step(5, "enter_from_private_form", claim_id="c-1")
    made = described(older, timeline.Found(claim=claim))
    assert made.title == "Typed the one-time code you gave — the site accepted it"
    assert made.badge == ("Worked", "good")


def test_model_requests_show_only_when_an_attempt_failed():
    good = tasks.ModelAttempt(request=2, attempt=1, status=200)
    assert timeline.describe(event(3, "model.attempt", model_attempt=good)) is None
    busy = tasks.ModelAttempt(
        request=2,
        attempt=1,
        status=503,
        error='HTTP 503: {"error": "busy"}',
        retried=True,
        wait_s=2,
    )
    made = timeline.describe(event(4, "model.attempt", model_attempt=busy))
    assert made is not None and made.kind == "model.attempt"
    assert made.title == "The model provider didn't answer (HTTP 503); nod tried again in 2.0 s"
    assert '{"error": "busy"}' in dict(made.folded)[words.ERROR_LABEL]
    assert_plain(made)


def test_queued_running_and_waiting_are_no_lines_and_the_person_is_quoted():
    for kind in ("task.queued", "task.running", "task.waiting"):
        assert timeline.describe(event(1, kind)) is None
    said = timeline.describe(event(2, "task.queued", person_words="Anything left to do?"))
    assert said is not None and said.title == "You said: “Anything left to do?”"
    # The tasks service's own notes are its message, not the person's words.
    filled = event(3, "task.queued", message="private form one_time_code filled")
    assert timeline.describe(filled) is None
    noted = event(
        5,
        "task.queued",
        message="The person checked step 4: it did not happen. Not in the app.",
        person_words="Not in the app.",
    )
    made = timeline.describe(noted)
    assert made is not None and made.title == "You said: “Not in the app.”"


def test_the_end_shows_how_the_task_came_out():
    ended = event(9, "task.ended", state=tasks.TASK_STATE_DONE, message="The lamp is paid for.")
    task = tasks.Task(
        state=tasks.TASK_STATE_DONE,
        outcome=tasks.TASK_OUTCOME_NOT_DONE,
        outcome_reason="PAYMENT_DECLINED",
    )
    made = timeline.describe(ended, task)
    assert made is not None and made.kind == "task.ended"
    assert made.badge == ("Didn't finish", "bad")
    assert dict(made.folded)[words.NOTE_LABEL] == "The lamp is paid for."
    # Not this end's task (a later run's): the state's own words.
    task.state = tasks.TASK_STATE_RUNNING
    assert timeline.describe(ended, task).badge == ("Done", "good")  # type: ignore[union-attr]
    failed = event(10, "task.ended", state=tasks.TASK_STATE_FAILED)
    assert timeline.describe(failed).badge != ("Done", "good")  # type: ignore[union-attr]


class Events:
    def __init__(self, events: list[tasks.TaskEvent], task: tasks.Task, steps=()):
        self.events, self.task, self.steps = events, task, list(steps)

    async def ListTaskEvents(self, request):
        return tasks.ListTaskEventsResponse(events=self.events, steps=self.steps)

    async def GetTask(self, request):
        return tasks.GetTaskResponse(task=self.task)


async def test_a_page_shows_each_step_once_where_it_began():
    code = tasks.FORM_KIND_ONE_TIME_CODE
    events = [
        event(1, "task.queued"),
        event(2, "task.running"),
        event(
            3, "model.attempt", model_attempt=tasks.ModelAttempt(request=1, attempt=1, status=200)
        ),
        event(
            4,
            "step.started",
            step=step(1, "navigate", tasks.STEP_STATE_RUNNING, arguments={"url": SHOP}),
        ),
        event(5, "step.ended", step=step(1, "navigate", page_origin=SHOP, page_title="Sign in")),
        event(
            6,
            "step.started",
            step=step(2, "ask_private_form", tasks.STEP_STATE_RUNNING, form_kind=code),
        ),
        event(7, "task.waiting"),
        event(8, "step.ended", step=step(2, "ask_private_form", form_kind=code)),
        event(9, "task.queued", message="private form one_time_code filled"),
        event(10, "step.started", step=step(3, "finish", tasks.STEP_STATE_RUNNING)),
        event(11, "step.ended", step=step(3, "finish")),
        event(12, "task.ended", state=tasks.TASK_STATE_DONE, message="Signed in."),
    ]
    task = tasks.Task(
        id="t-1", state=tasks.TASK_STATE_DONE, outcome=tasks.TASK_OUTCOME_DONE, message="Signed in."
    )
    nod = SimpleNamespace(tasks=Events(events, task))
    read = await timeline.read(nod, "t-1")  # type: ignore[arg-type]
    assert read.after == 12 and read.task == task
    shown = [(line.number, line.step, line.title, line.badge) for line in read.lines]
    assert shown == [
        (5, 1, "Opened “Sign in”", ("Worked", "good")),
        (8, 2, "Asked you for the one-time code", ("Answered", "good")),
        (12, 0, "The task ended", ("Done", "good")),
    ]


def render(made: timeline.Line) -> str:
    return TEMPLATES.get_template("_line.html").render({"line": made})


def test_a_lines_html_carries_its_step_and_folds_its_details():
    made = described(
        step(
            3,
            "click",
            state=tasks.STEP_STATE_NOT_RUN,
            reason_code="REPEATS_A_STEP",
            reason="identical to step 2; give new_action_reason",
            arguments={"target": "e12"},
        )
    )
    made.number = 17
    html = render(made)
    assert 'data-step="3"' in html and 'data-event="17"' in html
    outside = re.sub(r"<details.*?</details>", "", html, flags=re.S)
    assert "new_action_reason" not in outside and "e12" not in outside
    inside = re.search(r"<details.*?</details>", html, flags=re.S)
    assert (
        inside and "new_action_reason" in inside.group(0) and "&#34;target&#34;" in inside.group(0)
    )
    said = timeline.describe(event(4, "task.queued", message="Go on.", person_words="Go on."))
    assert said is not None and "data-step" not in render(said)


def test_a_page_steps_picture_is_folded_under_its_line_and_no_other_steps():
    ran = timeline.describe(
        event(9, "step.ended", task_id="t-1", step=step(4, "read_page", page_title="Sign in"))
    )
    assert ran is not None and ran.picture == "/tasks/t-1/steps/4/page"
    html = render(ran)
    folded = re.search(r"<details.*?</details>", html, flags=re.S)
    assert folded, "a read with no arguments still folds its picture"
    picture = re.search(r"<img [^>]*>", folded.group(0))
    assert picture is not None
    assert 'src="/tasks/t-1/steps/4/page"' in picture.group(0)
    assert 'loading="lazy"' in picture.group(0)
    assert 'alt="The page after this step (private fields painted over)"' in picture.group(0)
    assert "<img" not in re.sub(r"<details.*?</details>", "", html, flags=re.S)
    unpictured = [
        step(5, "ask_person", arguments={"question": "Which size?"}),
        step(6, "navigate", state=tasks.STEP_STATE_RUNNING, arguments={"url": SHOP}),
        step(7, "click", state=tasks.STEP_STATE_NOT_RUN, reason_code="REPEATS_A_STEP"),
    ]
    for other in unpictured:
        made = timeline.describe(event(10, "step.ended", task_id="t-1", step=other))
        assert made is not None and not made.picture and "<img" not in render(made)
    # Without the task's id (a line made elsewhere) there is no address to give.
    assert not described(step(4, "read_page")).picture


def test_the_panel_says_the_outcome_under_its_badge_and_the_models_words_as_a_note():
    task = tasks.Task(
        id="t-1",
        state=tasks.TASK_STATE_DONE,
        outcome=tasks.TASK_OUTCOME_NOT_DONE,
        outcome_reason="CODE_NOT_ACCEPTED",
        outcome_step=5,
        message="Signed in to the demo shop.",
    )
    html = TEMPLATES.get_template("_now.html").render(
        {"task": task, "wait": None, "ended": True, "key": "k", "request_id": "r", "csrf": "c"}
    )
    state = html.split('<div class="state-line">', 1)[1].split("<form", 1)[0]
    assert re.findall(r'class="badge [a-z]+">([^<]*)<', state) == ["Didn&#39;t finish"]
    assert "The site didn&#39;t accept the one-time code." in html
    assert '<span class="message">Signed in to the demo shop.</span>' in html
    assert html.index("didn&#39;t accept") < html.index("Signed in to the demo shop.")


async def test_a_page_shows_a_waiting_step_as_it_is_now_and_not_the_tasks_own_words():
    text = "Buy the desk lamp at the demo shop"
    events = [
        event(1, "task.queued", message=text),
        event(2, "step.started", step=step(1, "request_payment", tasks.STEP_STATE_RUNNING)),
        event(3, "task.waiting"),
    ]
    # The step as it is now: waiting, with the payment it asked for.
    now = step(1, "request_payment", tasks.STEP_STATE_RUNNING, payment_id="p-1")
    task = tasks.Task(id="t-1", text=text, state=tasks.TASK_STATE_WAITING)
    payment = payments.Payment(
        merchant_origin=SHOP,
        amount_minor=2500,
        currency="EUR",
        state=payments.PAYMENT_STATE_AWAITING_CONFIRMATION,
    )
    nod, _ = services(payments={"GetPayment": payments.GetPaymentResponse(payment=payment)})
    nod.tasks = Events(events, task, [now])
    read = await timeline.read(nod, "t-1")  # type: ignore[arg-type]
    assert [(line.number, line.title) for line in read.lines] == [
        (2, f"Asked you to pay 25.00 EUR to {SHOP}"),
    ]
    assert read.lines[0].badge == ("Waiting for you", "ask") and read.after == 3
    # Live, before its payment is known: no made-up shop.
    live = timeline.describe_step(step(1, "request_payment", tasks.STEP_STATE_RUNNING))
    assert live is not None and live.title == "Asked you to pay"
