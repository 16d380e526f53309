"""The words and badges a person reads for each state. One place, so every
page says the same thing the same way."""

import json

from google.protobuf.json_format import MessageToDict
from google.protobuf.struct_pb2 import Struct
from google.protobuf.timestamp_pb2 import Timestamp

from nod.approvals.v1 import approvals_pb2 as approvals
from nod.claims.v1 import claims_pb2 as claims
from nod.payments.v1 import payments_pb2 as payments
from nod.tasks.v1 import tasks_pb2 as tasks

# (words, badge class). The badge classes are the only colours: calm for
# what is going on, green for what is settled, amber for what needs a check.
TASK = {
    tasks.TASK_STATE_QUEUED: ("Queued", "calm"),
    tasks.TASK_STATE_RUNNING: ("Running", "calm"),
    tasks.TASK_STATE_WAITING: ("Waiting for you", "ask"),
    tasks.TASK_STATE_DONE: ("Done", "good"),
    tasks.TASK_STATE_FAILED: ("Stopped short: check, then continue", "check"),
    tasks.TASK_STATE_STOPPED: ("Stopped", "quiet"),
    tasks.TASK_STATE_INTERRUPTED: ("Interrupted: check, then continue", "check"),
}
TASK_ENDED = frozenset(
    {
        tasks.TASK_STATE_DONE,
        tasks.TASK_STATE_FAILED,
        tasks.TASK_STATE_STOPPED,
        tasks.TASK_STATE_INTERRUPTED,
    }
)
TASK_FILTERS = {
    "queued": tasks.TASK_STATE_QUEUED,
    "running": tasks.TASK_STATE_RUNNING,
    "waiting": tasks.TASK_STATE_WAITING,
    "done": tasks.TASK_STATE_DONE,
    "failed": tasks.TASK_STATE_FAILED,
    "stopped": tasks.TASK_STATE_STOPPED,
    "interrupted": tasks.TASK_STATE_INTERRUPTED,
}
STEP = {
    tasks.STEP_STATE_RUNNING: ("Running", "calm"),
    tasks.STEP_STATE_DONE: ("Done", "good"),
    tasks.STEP_STATE_FAILED: ("Failed", "quiet"),
    tasks.STEP_STATE_NOT_RUN: ("Not run", "quiet"),
    tasks.STEP_STATE_UNCERTAIN: ("Uncertain", "check"),
}
CLAIM = {
    claims.CLAIM_STATE_RUNNING: ("Running", "calm"),
    claims.CLAIM_STATE_SUBMITTED: ("Submitted", "good"),
    claims.CLAIM_STATE_UNCERTAIN: ("Uncertain", "check"),
}
CHECK = {
    claims.CHECK_RESULT_WORKED: "the page check found it worked",
    claims.CHECK_RESULT_DID_NOT_WORK: "the page check found it did not work",
    claims.CHECK_RESULT_UNCLEAR: "the page check could not tell",
}
ENTRY = {
    claims.ENTRY_KIND_SAVED_LOGIN: "saved login",
    claims.ENTRY_KIND_ONE_TIME_CODE: "one-time code",
    claims.ENTRY_KIND_CARD: "card",
    claims.ENTRY_KIND_TYPED_PASSWORD: "typed password",
    claims.ENTRY_KIND_SECURITY_CODE: "security code",
}
APPROVAL = {
    approvals.APPROVAL_STATE_PENDING: ("Waiting for your decision", "ask"),
    approvals.APPROVAL_STATE_APPROVED: ("You said yes", "good"),
    approvals.APPROVAL_STATE_REJECTED: ("You said no", "quiet"),
    approvals.APPROVAL_STATE_CANCELLED: ("Cancelled", "quiet"),
    approvals.APPROVAL_STATE_EXPIRED: ("Expired", "quiet"),
}
EXECUTION = {
    approvals.EXECUTION_STATE_RUNNING: ("Running", "calm"),
    approvals.EXECUTION_STATE_DONE: ("Done", "good"),
    approvals.EXECUTION_STATE_NOT_RUN: ("Not run", "quiet"),
    approvals.EXECUTION_STATE_FAILED: ("Failed", "quiet"),
    approvals.EXECUTION_STATE_UNCERTAIN: ("Uncertain", "check"),
}
PAYMENT = {
    payments.PAYMENT_STATE_AWAITING_CONFIRMATION: ("Waiting for your decision", "ask"),
    payments.PAYMENT_STATE_CONFIRMED: ("You said yes", "calm"),
    payments.PAYMENT_STATE_RUNNING: ("Paying", "calm"),
    payments.PAYMENT_STATE_SUBMITTED: ("Submitted", "good"),
    payments.PAYMENT_STATE_UNCERTAIN: ("Uncertain", "check"),
    payments.PAYMENT_STATE_REFUSED: ("You said no", "quiet"),
    payments.PAYMENT_STATE_CANCELLED: ("Cancelled", "quiet"),
    payments.PAYMENT_STATE_EXPIRED: ("Expired", "quiet"),
}
OUTCOME = {
    payments.PAYMENT_OUTCOME_PAID: "paid",
    payments.PAYMENT_OUTCOME_DECLINED: "declined",
    payments.PAYMENT_OUTCOME_UNKNOWN: "outcome unknown: check your card statement",
}
RESOLUTION = {
    tasks.RESOLUTION_HAPPENED: "You checked: it happened.",
    tasks.RESOLUTION_DID_NOT_HAPPEN: "You checked: it did not happen.",
}
UNCERTAIN_MEANS = (
    "This may have reached the website or app. Check there before trying again:"
    " nod will not try again on its own."
)


APPROVAL_PENDING = approvals.APPROVAL_STATE_PENDING
EXECUTION_UNCERTAIN = approvals.EXECUTION_STATE_UNCERTAIN
PAYMENT_AWAITING = payments.PAYMENT_STATE_AWAITING_CONFIRMATION
PAYMENT_UNCERTAIN = payments.PAYMENT_STATE_UNCERTAIN
FORM_CODE = tasks.FORM_KIND_ONE_TIME_CODE
FORM_SECURITY_CODE = tasks.FORM_KIND_SECURITY_CODE


def parameters(values: Struct) -> str:
    return json.dumps(MessageToDict(values), indent=2, sort_keys=True, ensure_ascii=False)


def badge(table: dict, state: int) -> tuple[str, str]:
    return table.get(state, ("Unknown", "quiet"))


def when(stamp: Timestamp) -> str:
    if not stamp.seconds:
        return ""
    return stamp.ToDatetime().strftime("%Y-%m-%d %H:%M:%S UTC")


def money(amount_minor: int, currency: str) -> str:
    return f"{amount_minor / 100:,.2f} {currency}"
