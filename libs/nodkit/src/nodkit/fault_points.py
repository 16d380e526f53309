"""Every fault point in nod, by name: where it is and what a fault there
stands for. nodkit.faults arms only these; scripts/fault_points.py (make
lint) fails on a point in the code that isn't listed here and on a listed
point no code passes; tests/faults runs each flow with each point armed, so
a listed point no flow reaches fails a test."""

POINTS: dict[str, str] = {
    # The claim (claims service, Claim).
    "claims.claim_received": "a Claim request passed its checks; nothing written yet",
    "claims.claim_before_commit": (
        "a claim taking a one-time entry (a typed value, a card's security code): its row"
        " and event are written and the entry taken, the transaction not yet committed"
    ),
    "claims.claim_after_commit": (
        "a saved item's claim is committed (one statement with its event); its secret"
        " not yet opened"
    ),
    "claims.secret_unsealed": "the granted claim's secret is opened; no one-time code added yet",
    "claims.reply_sending": "a Claim's reply (with a grant's secret) is about to leave the handler",
    # The runner's private entry (browser service, EnterPrivate).
    "browser.grant_received": "Claim answered granted; nothing typed yet",
    "browser.fields_filled": "every field is filled; submit not pressed",
    "browser.submit_pressed": (
        "submit was pressed and the site answered it; the page has not taken the answer,"
        " SUBMITTED not yet asked for"
    ),
    "browser.answer_seen": "the submit click returned: the page took the site's answer",
    "browser.submitted_recorded": "MarkSubmitted answered; the reply not yet sent",
    # The app action (approvals service, Decide yes and its execution).
    "approvals.decision_committed": "the yes and its RUNNING execution are committed",
    "approvals.execution_running": "the execution is taken to run; the account not yet re-checked",
    "approvals.account_rechecked": "the account is still connected; nothing sent",
    "approvals.request_sent": "the webhook reached the app (its status is in); the answer not read",
    "approvals.answer_received": "the app's answer is read; the end not yet recorded",
    "approvals.end_recorded": "the execution's end is committed",
    # The payment (payments service).
    "payments.yes_committed": "the person's yes is committed; the reply not yet sent",
    "payments.card_claim": "the card entry is committed RUNNING; its card not yet claimed",
    "payments.submitted": "the card entry's end (SUBMITTED, or UNCERTAIN) is committed",
    "payments.outcome": "the outcome read from the page is committed",
    # The task (tasks service).
    "tasks.queued": "StartTask committed the task QUEUED",
    "tasks.taken": "a runner took the task RUNNING; its run not yet begun",
    "tasks.model_request_sent": "a model request (each attempt) is about to go out",
    "tasks.model_answered": "the model's answer is read; nothing recorded of it",
    "tasks.tool_call_running": "the tool call is recorded RUNNING; its peer not yet called",
    "tasks.peer_called": "the peer answered the tool call; its result not yet recorded",
    "tasks.result_recorded": "the tool call's result is committed; the run goes on",
    "tasks.waiting": "the task is committed WAITING (a yes, a form)",
    "tasks.form_accepted": "SubmitPrivateForm's answer is committed",
    "tasks.stop_received": "Stop is committed; running steps not yet interrupted",
    "tasks.continue_received": "Continue committed the task QUEUED again",
    # The gateway's posts.
    "gateway.decision_posted": "a yes or no to an app action reached the gateway; not passed on",
    "gateway.form_posted": "a private form's value reached the gateway; nothing stored yet",
}
