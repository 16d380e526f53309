"""The words and badges a person reads for each state, outcome, reason code
and step. One place, so every page says the same thing the same way; the
codes, tool names and texts written for the model are keys here, never
words a person reads."""

import json
from urllib.parse import urlsplit

from google.protobuf.json_format import MessageToDict
from google.protobuf.struct_pb2 import Struct
from google.protobuf.timestamp_pb2 import Timestamp

from nod.approvals.v1 import approvals_pb2 as approvals
from nod.claims.v1 import claims_pb2 as claims
from nod.payments.v1 import payments_pb2 as payments
from nod.tasks.v1 import tasks_pb2 as tasks

# (words, badge class). The badge classes are the only colours: calm for
# what is going on, green for what is settled, amber for what needs a check,
# red for what didn't work.
# A task's state alone: an ended task is shown by its outcome (task_badge);
# these are the words for a record nobody judged (older than outcomes).
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
# A payment as its ask's line shows it: what the person decided (what the
# card's entry did is the paying step's to say).
PAYMENT_DECIDED = {
    payments.PAYMENT_STATE_AWAITING_CONFIRMATION: ("Waiting for your decision", "ask"),
    payments.PAYMENT_STATE_CONFIRMED: ("You said yes", "good"),
    payments.PAYMENT_STATE_RUNNING: ("You said yes", "good"),
    payments.PAYMENT_STATE_SUBMITTED: ("You said yes", "good"),
    payments.PAYMENT_STATE_UNCERTAIN: ("You said yes", "good"),
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


# --- A task: its badge, and one sentence of why ------------------------------

# A task that has not ended (or was stopped): what it is doing now.
TASK_GOING = {
    tasks.TASK_STATE_QUEUED: ("Queued", "calm"),
    tasks.TASK_STATE_RUNNING: ("Running", "calm"),
    tasks.TASK_STATE_WAITING: ("Needs you", "ask"),
    tasks.TASK_STATE_STOPPED: ("Stopped", "quiet"),
}
# An ended task, by how it came out (judged by the tasks service from the
# steps' own results, not the model's words).
TASK_OUTCOME = {
    tasks.TASK_OUTCOME_DONE: ("Done", "good"),
    tasks.TASK_OUTCOME_NOT_DONE: ("Didn't finish", "bad"),
    tasks.TASK_OUTCOME_MAY_HAVE_HAPPENED: ("May have happened", "check"),
}
# Why a step failed or was not run (Step.reason_code): the tasks service's
# own rules, and the refusals of the browser, the vault and the other
# services it passes on. Also why a task didn't end done, when a step's
# code is the reason (Task.outcome_reason).
REASONS = {
    # The tasks service's rules.
    "REPEATS_A_STEP": "nod had already done exactly this, and never does a step twice.",
    "LOGIN_DIDNT_GET_THROUGH": (
        "This saved login didn't get through earlier in this task, so nod didn't try it again."
    ),
    "TOO_MANY_CODE_TRIES": (
        "The site refused several one-time codes in this task, so nod asks for no more"
        " (sites lock an account after a few wrong codes)."
    ),
    "NO_SUCH_ITEM": (
        "What this step named isn't there (a saved item or a form), so nothing was done."
    ),
    "READ_THE_PAGE_FIRST": "nod hadn't read the page this was for yet, so nothing was done.",
    "BAD_ARGUMENTS": "nod asked for this step in a way it can't be done, so nothing was done.",
    "PAGE_GONE": "The page was gone (the browser had started afresh), so nothing was done on it.",
    "PERSON_SAID_NO": "You said no, so nothing was done.",
    "EXPIRED": "Nobody answered in time, so nothing was done.",
    "STOPPED": "The task was stopped, so this didn't go ahead.",
    "STEP_REFUSED": "nod didn't run this step, so nothing was done.",
    "STEP_FAILED": "This step didn't work.",
    # Where a private value may go (the vault's bindings, the browser's checks).
    "PAGE_NOT_BOUND": (
        "The page belonged to another site than the one this was meant for, so nod typed nothing."
    ),
    "FRAME_NOT_BOUND": (
        "The fields were in a part of the page from another site, so nod typed nothing."
    ),
    "SUBMISSION_NOT_BOUND": (
        "The form would have sent what was typed to another site, so nod typed nothing."
    ),
    "CARD_NOT_BOUND": "The card wasn't set up for a payment you said yes to, so nod typed nothing.",
    "ENTRY_NOT_BOUND": "What you gave wasn't tied to a page, so nod typed nothing.",
    "WRONG_FIELD_KIND": "A field wasn't the kind this value goes into, so nod typed nothing.",
    "SUBMITS_ELSEWHERE": "The form sends what is typed to another site, so nod typed nothing.",
    "VALUES_SENT_ELSEWHERE": (
        "The page tried to send what was typed to another site; nod blocked it."
    ),
    "FIELDS_ON_SEVERAL_SITES": "The fields were on different sites, so nod typed nothing.",
    "SUBMISSION_NOT_WEB": (
        "The form would have sent what was typed somewhere that isn't a web site,"
        " so nod typed nothing."
    ),
    "FIELD_NOT_SHOWN": "A field wasn't plainly shown on the page, so nod typed nothing.",
    "FIELD_INVISIBLE": "A field wasn't plainly shown on the page, so nod typed nothing.",
    "FIELD_TRANSPARENT": "A field wasn't plainly shown on the page, so nod typed nothing.",
    "FIELD_ZERO_SIZE": "A field wasn't plainly shown on the page, so nod typed nothing.",
    "FIELD_OFF_SCREEN": "A field wasn't plainly shown on the page, so nod typed nothing.",
    "FIELD_COVERED": "A field was covered by something else on the page, so nod typed nothing.",
    "FIELD_LABELLED_OTHERWISE": "A field was labelled as something else, so nod typed nothing.",
    "FIELD_DISABLED": "A field couldn't be typed into, so nod typed nothing.",
    "FIELD_GONE": "A field went from the page before nod could type, so nothing was typed.",
    "ADDRESS_NOT_ALLOWED": (
        "That address is inside a private network, where nod's browser doesn't go."
    ),
    "TOO_MANY_SESSIONS": (
        "nod's browser had too many pages open at once, so nothing was done."
        " Continue in a minute to try again."
    ),
    # The browser's other answers.
    "PAGE_BUSY": "The browser was busy with another step, so nothing was done.",
    "SESSION_NOT_FOUND": "The browser's page had closed, so nothing was done.",
    "SESSION_CLOSED": "The browser's page had closed, so nothing was done.",
    "TARGET_NOT_FOUND": "nod couldn't find that on the page, so nothing was done.",
    "TARGET_AMBIGUOUS": "More than one thing on the page matched, so nothing was done.",
    "NO_MATCHING_OPTION": "The page had no such option, so nothing was chosen.",
    "NO_SUCH_OPTION": "The page had no such option, so nothing was chosen.",
    "NO_SUCH_PAGE": "There was no such page open, so nothing was done.",
    "NOT_EDITABLE": "That can't be typed into, so nothing was typed.",
    "NOT_CHECKABLE": "That can't be ticked, so nothing was changed.",
    "NO_ORIGIN": "The page had no web address to tie this to, so nothing was done.",
    "PAGE_NOT_READABLE": "nod couldn't read the page.",
    "NAVIGATION_TIMEOUT": "The page took too long to open.",
    "NAVIGATION_FAILED": "The page couldn't be opened.",
    "ACTION_TIMEOUT": "The page took too long to answer.",
    # The vault, payments and approvals.
    "CLAIMS_UNAVAILABLE": "nod couldn't reach your vault, so nothing was typed.",
    "ITEM_NOT_FOUND": "That saved item isn't in your vault any more, so nothing was typed.",
    "LOGIN_REFUSED": (
        "This saved login didn't get through earlier in this task, so nod didn't try it again."
    ),
    "TOTP_SEED_UNUSABLE": (
        "The saved login's one-time code generator couldn't be used, so nothing was typed."
    ),
    "NO_CODE_STEP_FREE": (
        "This login's one-time code was used moments ago, so nod didn't type another yet."
    ),
    "ACCOUNT_NOT_FOUND": "That app account isn't connected, so nothing was sent.",
    "ACCOUNT_DISCONNECTED": "That app account isn't connected any more, so nothing was sent.",
    "DUPLICATE_NEEDS_CONFIRMATION": (
        "It may repeat an earlier action, so it needs your explicit yes."
    ),
    "LIMIT_EXCEEDED": "The payment is over your spending limit, so nothing was paid.",
    "LIMIT_CURRENCY_MISMATCH": (
        "The payment isn't in your spending limit's currency, so nothing was paid."
    ),
    "DUPLICATE_ORDER": "This order looks paid already, so nothing was paid again.",
}
# A step that failed or was not run, with a code not listed above.
STEP_NOT_RUN_ANYWAY = "nod didn't run this step, so nothing was done."
STEP_FAILED_ANYWAY = "This step didn't go through."
# Why a task didn't end done (Task.outcome_reason), beside the step codes.
# {step}: "Step 4", or "A step" when the outcome names none.
OUTCOME_REASONS = {
    "SIGN_IN_REFUSED": "The site didn't accept the sign-in.",
    "CODE_NOT_ACCEPTED": "The site didn't accept the one-time code.",
    "SIGN_IN_UNCLEAR": "nod couldn't tell whether the sign-in worked: check the site.",
    "PAYMENT_DECLINED": "The shop declined the payment.",
    "PAYMENT_NOT_APPROVED": "The payment didn't get your yes, so nothing was paid.",
    "PAYMENT_UNKNOWN": (
        "The shop's page didn't say whether the payment went through:"
        " check your card statement before anyone tries again."
    ),
    "APP_ACTION_FAILED": "The app action didn't work.",
    "APP_ACTION_NOT_RUN": "The app action didn't run: nothing was sent to the app.",
    "ENTRY_UNCERTAIN": "{step} may have reached the site: check there before anyone tries again.",
    "PAYMENT_UNCERTAIN": (
        "{step} may have reached the shop: check your card statement before anyone tries again."
    ),
    "APP_ACTION_UNCERTAIN": (
        "{step} may have reached the app: check there before anyone tries again."
    ),
    "STEP_UNCERTAIN": ("{step} may have reached the site or app: check before anyone tries again."),
    "NOT_FINISHED": "nod couldn't do what you asked.",
    # Only when the task has no message of its own (nod's words for the person).
    "RUN_FAILED": "nod couldn't go on: check what happened, then continue.",
    "INTERRUPTED": "nod restarted while this task was running: check what it did, then continue.",
    "STOPPED": "You stopped this task.",
}
OUTCOME_STEP = "Step {number}"
OUTCOME_NO_STEP = "A step"
# An outcome whose reason is a code not listed here.
OUTCOME_ANYWAY = {
    tasks.TASK_OUTCOME_NOT_DONE: "It didn't finish: the steps below say what happened.",
    tasks.TASK_OUTCOME_MAY_HAVE_HAPPENED: (
        "Something in it may have happened: check before anyone tries again."
    ),
}
# The task's last message under the sentence: the model's finish words, or
# nod's own, never as the verdict.
NOTE_LABEL = "nod's note"
# The task's message is the sentence itself (nod's words for the person),
# or says no more than it, for these reasons.
MESSAGE_IS_THE_SENTENCE = frozenset({"RUN_FAILED"})
MESSAGE_SAYS_NOTHING_MORE = frozenset({"STOPPED", "INTERRUPTED"})


def task_badge(task: tasks.Task) -> tuple[str, str]:
    """What a task's badge says: what it is doing, or how it came out. A task
    ended before outcomes were judged keeps the words of its state (never a
    green Done for one that failed or was interrupted)."""
    if task.state in TASK_GOING:
        return TASK_GOING[task.state]
    if task.state in TASK_ENDED and task.outcome in TASK_OUTCOME:
        return TASK_OUTCOME[task.outcome]
    return badge(TASK, task.state)


def _ended(task: tasks.Task) -> bool:
    return task.state in TASK_ENDED


def outcome_sentence(task: tasks.Task) -> str:
    """One sentence under the badge of an ended task: why it came out as it
    did. Empty while it has not ended, and for a task done."""
    if not _ended(task):
        return ""
    reason = task.outcome_reason
    if not task.outcome:
        # Not judged (an older record): its state and message say it.
        if task.state == tasks.TASK_STATE_STOPPED:
            return OUTCOME_REASONS["STOPPED"]
        if task.state in (tasks.TASK_STATE_FAILED, tasks.TASK_STATE_INTERRUPTED):
            key = "RUN_FAILED" if task.state == tasks.TASK_STATE_FAILED else "INTERRUPTED"
            return task.message or OUTCOME_REASONS[key]
        return ""
    if task.outcome == tasks.TASK_OUTCOME_DONE:
        return ""
    if reason in MESSAGE_IS_THE_SENTENCE and task.message:
        return task.message
    if reason in OUTCOME_REASONS:
        step = OUTCOME_STEP.format(number=task.outcome_step) if task.outcome_step else ""
        return OUTCOME_REASONS[reason].format(step=step or OUTCOME_NO_STEP)
    if reason in REASONS:
        return REASONS[reason]
    return OUTCOME_ANYWAY.get(task.outcome, OUTCOME_ANYWAY[tasks.TASK_OUTCOME_NOT_DONE])


def outcome_note(task: tasks.Task) -> str:
    """The ended task's message, shown under its sentence as nod's note
    (usually the model's finish words); empty when the sentence already
    says it, and for a stop."""
    if not _ended(task) or not task.message or task.state == tasks.TASK_STATE_STOPPED:
        return ""
    if task.outcome_reason in MESSAGE_IS_THE_SENTENCE | MESSAGE_SAYS_NOTHING_MORE:
        return ""
    if task.message == outcome_sentence(task):
        return ""
    return task.message


def step_reason(code: str, state: int) -> str:
    """Why a step failed or was not run, in words; never the code."""
    if code in REASONS:
        return REASONS[code]
    if state == tasks.STEP_STATE_NOT_RUN:
        return STEP_NOT_RUN_ANYWAY
    return STEP_FAILED_ANYWAY


# --- A step, in words ----------------------------------------------------------

# What a step did, by tool (a key, never shown) and, for private entries and
# forms, what the form held ("tool/kind"): (while it runs, once it went
# through, when it didn't or may not have). One string: the same in each.
# Asking the person is (asked, asked, not asked).
# {page}: the page's title in quotes, else its address, else "the page";
# {on}: " “title”", " at address" or nothing; {site}: the site's address;
# {target}: the address asked for; {shop}: the shop's address; {amount},
# {to_shop} and {card}: " 25.00 EUR", " to https://shop.example" and " with
# •••• 4242", or nothing (the payment not known); {question}.
STEP_WORDS: dict[str, str | tuple[str, str, str]] = {
    "navigate": ("Opening {target}", "Opened {page}", "Tried to open {target}"),
    "read_page": ("Reading the page", "Read the page{on}", "Tried to read the page"),
    "wait_for_page": (
        "Waiting for the page to settle",
        "Waited for the page{on}",
        "Tried to wait for the page",
    ),
    "click": ("Clicking on the page", "Clicked on {page}", "Tried to click on the page"),
    "type_text": ("Typing on the page", "Typed on the page", "Tried to type on the page"),
    "select_option": (
        "Choosing an option on the page",
        "Chose an option on the page",
        "Tried to choose an option on the page",
    ),
    "set_checked": (
        "Setting a checkbox on the page",
        "Set a checkbox on the page",
        "Tried to set a checkbox on the page",
    ),
    "press_key": (
        "Pressing a key on the page",
        "Pressed a key on the page",
        "Tried to press a key on the page",
    ),
    "scroll": ("Scrolling the page", "Scrolled the page", "Tried to scroll the page"),
    "go_back": ("Going back a page", "Went back to {page}", "Tried to go back a page"),
    "switch_page": ("Turning to another page", "Turned to {page}", "Tried to turn to another page"),
    "enter_saved_login": (
        "Signing in to {site} with your saved login",
        "Signed in to {site} with your saved login",
        "Tried to sign in to {site} with your saved login",
    ),
    "enter_from_private_form/one_time_code": (
        "Typing the one-time code you gave",
        "Typed the one-time code you gave",
        "Tried to type the one-time code you gave",
    ),
    "enter_from_private_form/password": (
        "Signing in to {site} with the password you gave",
        "Signed in to {site} with the password you gave",
        "Tried to sign in to {site} with the password you gave",
    ),
    "enter_from_private_form/login": (
        "Signing in to {site} with the login you gave",
        "Signed in to {site} with the login you gave",
        "Tried to sign in to {site} with the login you gave",
    ),
    "enter_from_private_form/security_code": (
        "Typing the card's security code you gave",
        "Typed the card's security code you gave",
        "Tried to type the card's security code you gave",
    ),
    "enter_from_private_form": (
        "Entering what you gave in the private form",
        "Entered what you gave in the private form",
        "Tried to enter what you gave in the private form",
    ),
    "pay": (
        "Paying{amount} to {shop}{card}",
        "Paid{amount} to {shop}{card}",
        "Tried to pay{amount} to {shop}{card}",
    ),
    "confirm_payment": (
        "Placing the order at {shop}",
        "Placed the order at {shop}",
        "Tried to place the order at {shop}",
    ),
    # Asking the person: asked (while it waits, and after), or not asked at
    # all (refused before it reached you).
    "request_payment": (
        "Asked you to pay{amount}{to_shop}{card}",
        "Asked you to pay{amount}{to_shop}{card}",
        "Didn't ask you to pay",
    ),
    "propose_app_action": (
        "Asked you to run an app action",
        "Asked you to run an app action",
        "Didn't ask you to run an app action",
    ),
    "ask_private_form/one_time_code": (
        "Asked you for the one-time code",
        "Asked you for the one-time code",
        "Didn't ask you for the one-time code",
    ),
    "ask_private_form/password": (
        "Asked you for the password",
        "Asked you for the password",
        "Didn't ask you for the password",
    ),
    "ask_private_form/login": (
        "Asked you for a saved login or a password",
        "Asked you for a saved login or a password",
        "Didn't ask you for a saved login or a password",
    ),
    "ask_private_form/security_code": (
        "Asked you for the card's security code",
        "Asked you for the card's security code",
        "Didn't ask you for the card's security code",
    ),
    "ask_private_form": (
        "Asked you for a private value",
        "Asked you for a private value",
        "Didn't ask you for a private value",
    ),
    "ask_person": ("Asked you: {question}", "Asked you: {question}", "Didn't ask you a question"),
    # A tool this page doesn't know yet.
    "": ("Taking a step", "Took a step", "Tried a step"),
}
# Tools whose step is no line of its own: the end shows in the task's badge.
HIDDEN_TOOLS = frozenset({"finish"})
# The names of what a private form held (Step.form_kind), for STEP_WORDS.
FORM_KINDS = {
    tasks.FORM_KIND_ONE_TIME_CODE: "one_time_code",
    tasks.FORM_KIND_PASSWORD: "password",
    tasks.FORM_KIND_LOGIN: "login",
    tasks.FORM_KIND_SECURITY_CODE: "security_code",
}
# What a claim entered, for a step recorded before steps said it.
CLAIM_FORM_KINDS = {
    claims.ENTRY_KIND_ONE_TIME_CODE: "one_time_code",
    claims.ENTRY_KIND_TYPED_PASSWORD: "password",
    claims.ENTRY_KIND_SAVED_LOGIN: "login",
    claims.ENTRY_KIND_SECURITY_CODE: "security_code",
}
NO_PAGE = "the page"
NO_SITE = "the site"
NO_SHOP = "the shop"
NO_TARGET = "a page"
PAGE_TITLED = "“{title}”"
ON_TITLED = " “{title}”"
ON_ORIGIN = " at {origin}"
AMOUNT = " {money}"
CARD = " with {label}"
TO_SHOP = " to {shop}"
QUESTION = "“{question}”"
# What the page said after a private entry, after the step's words.
SIGN_IN_CHECK = {
    tasks.ENTRY_CHECK_WORKED: " — the site let you in",
    tasks.ENTRY_CHECK_DID_NOT_WORK: " — the site didn't accept it",
    tasks.ENTRY_CHECK_UNCLEAR: " — nod couldn't tell whether it worked",
}
ENTRY_CHECK = {
    tasks.ENTRY_CHECK_WORKED: " — the site accepted it",
    tasks.ENTRY_CHECK_DID_NOT_WORK: " — the site didn't accept it",
    tasks.ENTRY_CHECK_UNCLEAR: " — nod couldn't tell whether it worked",
}
# The claims service's check, for a step recorded before steps said it.
CLAIM_CHECKS = {
    claims.CHECK_RESULT_WORKED: tasks.ENTRY_CHECK_WORKED,
    claims.CHECK_RESULT_DID_NOT_WORK: tasks.ENTRY_CHECK_DID_NOT_WORK,
    claims.CHECK_RESULT_UNCLEAR: tasks.ENTRY_CHECK_UNCLEAR,
}
# What the shop's page said after the card went in.
PAID = {
    tasks.PAID_OUTCOME_PAID: " — the shop says paid",
    tasks.PAID_OUTCOME_DECLINED: " — the shop declined it",
    tasks.PAID_OUTCOME_UNKNOWN: " — the shop's page didn't say whether it was paid",
    tasks.PAID_OUTCOME_NOT_YET: " — the shop shows its review page: the order isn't placed yet",
}
# The payments service's record of it, for a step recorded before steps said it.
PAYMENT_PAID = {
    payments.PAYMENT_OUTCOME_PAID: tasks.PAID_OUTCOME_PAID,
    payments.PAYMENT_OUTCOME_DECLINED: tasks.PAID_OUTCOME_DECLINED,
    payments.PAYMENT_OUTCOME_UNKNOWN: tasks.PAID_OUTCOME_UNKNOWN,
}
# A step line's badge.
STEP_BADGES = {
    "running": ("Running", "calm"),
    "waiting": ("Waiting for you", "ask"),
    "worked": ("Worked", "good"),
    "answered": ("Answered", "good"),
    "did_not_work": ("Didn't work", "bad"),
    "unclear": ("Unclear", "check"),
    "may_have_happened": ("May have happened", "check"),
    "not_run": ("Not run", "quiet"),
}
STEP_NUMBER = "Step {number}"
# What is folded under a line, by label.
DETAILS = "Details"
ARGUMENTS_LABEL = "What nod asked for, exactly"
ENTRY_LABEL = "Private entry"
ACTION_LABEL = "App action"
REASON_LABEL = "What nod told the model"
ATTEMPT_LABEL = "Model request"
ERROR_LABEL = "What went wrong"
ENTRY_FACTS = "{kind} at {origin}: {state}"
ACTION_FACTS = "{app} {action}"
ATTEMPT_FACTS = "request {request}, attempt {attempt}"
# The picture of the page a step left (the browser's; for the person only).
MAY_HAVE_HAPPENED = tasks.TASK_OUTCOME_MAY_HAVE_HAPPENED
# Look for me (G14): a read-only look where the result would show.
LOOK_INVITE = "Ask nod to look at the page, the order or the account first."
LOOK_BUTTON = "Look for me"
LOOK_EXPLAIN = (
    "nod only reads: it opens the page where this would show, types nothing, presses"
    " nothing and never signs in again. You still decide what happened."
)
LOOKED = "nod looked at {where} ({at}): {found}"
LOOK_BADGES = {
    tasks.LOOK_FINDING_FOUND: ("Found: it happened", "good"),
    tasks.LOOK_FINDING_NO_SIGN: ("No sign found", "check"),
    tasks.LOOK_FINDING_NOTHING_TO_READ: ("Nothing nod can read", "quiet"),
    tasks.LOOK_FINDING_UNSPECIFIED: ("Looked", "quiet"),
}
LOOK_PAGE_ALT = "The page nod looked at (private fields painted over)"
LOOK_PAGE_LABEL = "The page nod saw"


def look_place(url: str) -> str:
    """Where a look was: the site and page, without a query (which may be long)."""
    if not url:
        return "nothing"
    parts = urlsplit(url)
    return f"{parts.netloc}{parts.path}" if parts.netloc else url


PAGE_LABEL = "The page after it"
PAGE_ALT = "The page after this step (private fields painted over)"
PAGE_MISSING = "No picture of this page was kept."
# What the services did not answer, said on the line they leave short.
CLAIMS_SILENT = "The vault did not answer: the private entry is not shown."
APPROVALS_SILENT = "The approvals service did not answer: its decision is not shown."
PAYMENTS_SILENT = "The payments service did not answer: the payment is not shown."
MAY_REPEAT = "It may repeat an earlier action of this task."
# A model request, shown only when an attempt failed or was tried again.
MODEL_NO_ANSWER = "The model provider didn't answer"
MODEL_HTTP = "The model provider didn't answer (HTTP {status})"
MODEL_UNREADABLE = "The model provider's answer couldn't be read"
MODEL_TRIED_AGAIN = "; nod tried again in {wait_s:.1f} s"
MODEL_GAVE_UP = "; nod didn't try again"
# What the person said: continuing, or answering a question.
SAID = "You said: “{text}”"
# The end of a run, by the state it ended in; its badge is the outcome's.
ENDED = {
    tasks.TASK_STATE_DONE: "The task ended",
    tasks.TASK_STATE_FAILED: "The run stopped short",
    tasks.TASK_STATE_STOPPED: "You stopped the task",
    tasks.TASK_STATE_INTERRUPTED: "nod restarted while the task ran",
}
ENDED_ANYWAY = "The task ended"
# The check card: which step may have happened (its prompt is folded).
CHECK_PROMPT = "Step {step} may have reached the site or app, and nod can't tell whether it did."
CHECK_PROMPT_NO_STEP = "A step may have reached the site or app, and nod can't tell whether it did."


def check_prompt(step: int) -> str:
    return CHECK_PROMPT.format(step=step) if step else CHECK_PROMPT_NO_STEP


def model_attempt(status: int, retried: bool, wait_s: float) -> str:
    """A failed attempt of a model request, in words (the provider's own
    answer is folded: it may be JSON)."""
    if status == 0:
        what = MODEL_NO_ANSWER
    elif status == 200:
        what = MODEL_UNREADABLE
    else:
        what = MODEL_HTTP.format(status=status)
    return what + (MODEL_TRIED_AGAIN.format(wait_s=wait_s) if retried else MODEL_GAVE_UP)


def clock(stamp: Timestamp) -> str:
    """The time of day of a line (the full date is its title)."""
    if not stamp.seconds:
        return ""
    return stamp.ToDatetime().strftime("%H:%M:%S")


# The email sent when nod waits and no page of the person is open.
NUDGE_SUBJECT = "nod needs you"

NUDGE_FORM_WORDS = {
    tasks.FORM_KIND_ONE_TIME_CODE: "a one-time code",
    tasks.FORM_KIND_PASSWORD: "a password",
    tasks.FORM_KIND_LOGIN: "a saved login (or a password)",
    tasks.FORM_KIND_SECURITY_CODE: "your card's security code",
}
NUDGE_KIND_WORDS = {
    tasks.WAIT_KIND_DECISION: "nod needs your yes or no before it runs an app action.",
    tasks.WAIT_KIND_PAYMENT: "nod needs your yes or no before it pays.",
    tasks.WAIT_KIND_ANSWER: "nod asked you a question and waits for your answer.",
    tasks.WAIT_KIND_CHECK: "nod can't tell whether a step happened, and needs you to check.",
    tasks.WAIT_KIND_BANK_CONFIRMATION: "Your bank asks you to confirm a payment nod submitted.",
}


def what_nod_waits_for(wait: tasks.Wait) -> str:
    if wait.kind == tasks.WAIT_KIND_PRIVATE_FORM:
        what = NUDGE_FORM_WORDS.get(wait.form_kind, "something private")
        return f"nod needs {what} from you, typed on nod's own page."
    return NUDGE_KIND_WORDS.get(wait.kind, "nod waits for you.")
