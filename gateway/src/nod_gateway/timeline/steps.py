"""A step in words: its line, from its typed facts and what the services
said of it. Pure: it asks no service (lookups does, before)."""

import json
from urllib.parse import urlsplit

from nod.approvals.v1 import approvals_pb2 as approvals
from nod.claims.v1 import claims_pb2 as claims
from nod.payments.v1 import payments_pb2 as payments
from nod.tasks.v1 import tasks_pb2 as tasks
from nod_gateway.timeline.lines import (
    ANSWERS_OF_THE_PERSON,
    ASK_TOOLS,
    ENTRY_TOOLS,
    FORM_TOOLS,
    PAGE_TOOLS,
    PAY_TOOLS,
    SIGN_IN_FORMS,
    SIGN_IN_TOOLS,
    WAITING_TOOLS,
    Check,
    Found,
    Line,
    LookShown,
    Paid,
    arguments_of,
)
from nod_gateway.web import words


def _form_kind(step: tasks.Step, found: Found) -> str:
    """What the step's private form held: the step says, else (a step
    recorded before it did) its claim or the form it asked for."""
    if step.form_kind in words.FORM_KINDS:
        return words.FORM_KINDS[step.form_kind]
    if found.claim is not None and found.claim.kind in words.CLAIM_FORM_KINDS:
        return words.CLAIM_FORM_KINDS[found.claim.kind]
    if step.tool == "ask_private_form":
        kind = arguments_of(step).get("kind")
        if kind in words.FORM_KINDS.values():
            return str(kind)
    return ""


def _check(step: tasks.Step, found: Found) -> Check:
    if step.check:
        return step.check
    if step.tool in ENTRY_TOOLS and found.claim is not None:
        return words.CLAIM_CHECKS.get(found.claim.check, tasks.ENTRY_CHECK_UNSPECIFIED)
    return tasks.ENTRY_CHECK_UNSPECIFIED


def _paid(step: tasks.Step, found: Found) -> Paid:
    if step.paid:
        return step.paid
    if step.tool in PAY_TOOLS and found.payment is not None:
        return words.PAYMENT_PAID.get(found.payment.outcome, tasks.PAID_OUTCOME_UNSPECIFIED)
    return tasks.PAID_OUTCOME_UNSPECIFIED


def _went_wrong(check: Check, paid: Paid) -> bool:
    return check in (tasks.ENTRY_CHECK_DID_NOT_WORK, tasks.ENTRY_CHECK_UNCLEAR) or paid in (
        tasks.PAID_OUTCOME_DECLINED,
        tasks.PAID_OUTCOME_UNKNOWN,
    )


def _asked(step: tasks.Step) -> bool:
    """Whether an ask reached the person: it waits or waited for them, or
    made the decision or payment they answered (not an ask refused first)."""
    if step.approval_id or step.payment_id:
        return True
    if step.state == tasks.STEP_STATE_NOT_RUN:
        return step.reason_code in ANSWERS_OF_THE_PERSON
    return step.state != tasks.STEP_STATE_FAILED


def _phase(step: tasks.Step, check: Check, paid: Paid) -> int:
    """Which of a tool's words: 0 while it runs, 1 once it went through, 2
    when it didn't, or may not have (for an ask: 2 when it never asked)."""
    if step.tool in WAITING_TOOLS:
        return 1 if _asked(step) else 2
    if step.state == tasks.STEP_STATE_RUNNING:
        return 0
    if step.state == tasks.STEP_STATE_DONE and not _went_wrong(check, paid):
        return 1
    if step.state == tasks.STEP_STATE_DONE and step.form_kind == tasks.FORM_KIND_ONE_TIME_CODE:
        return 1  # typed; what the site said follows ("— the site didn't accept it")
    return 2


def _origin(url: str) -> str:
    try:
        parts = urlsplit(url)
    except ValueError:
        return ""
    if parts.scheme not in ("http", "https") or not parts.netloc:
        return ""
    return f"{parts.scheme}://{parts.netloc}"


def _values(step: tasks.Step, found: Found) -> dict[str, str]:
    title, origin = step.page_title.strip(), step.page_origin
    claim, payment = found.claim, found.payment
    arguments = arguments_of(step)
    if title:
        page, on = words.PAGE_TITLED.format(title=title), words.ON_TITLED.format(title=title)
    elif origin:
        page, on = origin, words.ON_ORIGIN.format(origin=origin)
    else:
        page, on = words.NO_PAGE, ""
    claimed = claim.origin if claim is not None else ""
    site = origin or claimed or words.NO_SITE
    shop = (payment.merchant_origin if payment is not None else "") or origin or claimed
    shop = shop or words.NO_SHOP
    amount = card = ""
    paid_to = payment.merchant_origin if payment is not None else ""
    if payment is not None:
        amount = words.AMOUNT.format(money=words.money(payment.amount_minor, payment.currency))
        card = words.CARD.format(label=payment.card_label) if payment.card_label else ""
    question = str(arguments.get("question", "")).strip()
    target = _origin(str(arguments.get("url", ""))) or words.NO_TARGET
    return {
        "page": page,
        "on": on,
        "site": site,
        "shop": shop,
        "amount": amount,
        "card": card,
        "to_shop": words.TO_SHOP.format(shop=paid_to) if paid_to else "",
        "question": words.QUESTION.format(question=question) if question else "",
        "target": target,
    }


def _said(step: tasks.Step, form_kind: str, check: Check, paid: Paid) -> str:
    """What the page or the shop said, after the step's words."""
    if step.tool in ENTRY_TOOLS and check:
        signing_in = step.tool in SIGN_IN_TOOLS or form_kind in SIGN_IN_FORMS
        return (words.SIGN_IN_CHECK if signing_in else words.ENTRY_CHECK).get(check, "")
    if step.tool in PAY_TOOLS and paid:
        return words.PAID.get(paid, "")
    return ""


def _decided(found: Found) -> bool:
    """Whether the person has answered the decision or payment it waits for."""
    if found.approval is not None:
        return found.approval.state != approvals.APPROVAL_STATE_PENDING
    if found.payment is not None:
        return found.payment.state != payments.PAYMENT_STATE_AWAITING_CONFIRMATION
    return False


def _badge_key(step: tasks.Step, check: Check, paid: Paid, found: Found) -> str:
    state = step.state
    if state == tasks.STEP_STATE_RUNNING:
        waiting = step.tool in WAITING_TOOLS and not _decided(found)
        return "waiting" if waiting else "running"
    if state == tasks.STEP_STATE_DONE:
        if check == tasks.ENTRY_CHECK_DID_NOT_WORK or paid == tasks.PAID_OUTCOME_DECLINED:
            return "did_not_work"
        if check == tasks.ENTRY_CHECK_UNCLEAR:
            return "unclear"
        if paid == tasks.PAID_OUTCOME_UNKNOWN:
            return "may_have_happened"
        return "answered" if step.tool in ASK_TOOLS else "worked"
    if state == tasks.STEP_STATE_NOT_RUN:
        return "not_run"
    if state == tasks.STEP_STATE_UNCERTAIN:
        return "may_have_happened"
    return "did_not_work"


def _pretty(arguments: str) -> str:
    try:
        parsed = json.loads(arguments)
    except ValueError:
        return arguments
    return json.dumps(parsed, indent=2, sort_keys=True, ensure_ascii=False)


def _may_have_happened(step: tasks.Step, found: Found) -> bool:
    return (
        step.state == tasks.STEP_STATE_UNCERTAIN
        or (found.claim is not None and found.claim.state == claims.CLAIM_STATE_UNCERTAIN)
        or (
            found.approval is not None
            and found.approval.execution_state == approvals.EXECUTION_STATE_UNCERTAIN
        )
        or (found.payment is not None and found.payment.state == payments.PAYMENT_STATE_UNCERTAIN)
    )


def _folded(step: tasks.Step, found: Found) -> list[tuple[str, str]]:
    folded = []
    if step.arguments and arguments_of(step):
        folded.append((words.ARGUMENTS_LABEL, _pretty(step.arguments)))
    if (claim := found.claim) is not None:
        facts = words.ENTRY_FACTS.format(
            kind=words.ENTRY.get(claim.kind, "private entry"),
            origin=claim.origin,
            state=words.badge(words.CLAIM, claim.state)[0].lower(),
        )
        if found_check := words.CHECK.get(claim.check, ""):
            facts += f"; {found_check}"
        if claim.reason:
            facts += f"; {claim.reason}"
        folded.append((words.ENTRY_LABEL, facts))
    if (approval := found.approval) is not None:
        facts = words.ACTION_FACTS.format(app=approval.app, action=approval.action)
        folded.append((words.ACTION_LABEL, facts))
    if step.reason:
        folded.append((words.REASON_LABEL, step.reason))
    return folded


# Steps that may have left a picture of their page: one that ran, not one
# still running (its picture comes once it ends) or refused before it ran.
PICTURED_STATES = frozenset(
    {tasks.STEP_STATE_DONE, tasks.STEP_STATE_FAILED, tasks.STEP_STATE_UNCERTAIN}
)
# A step that failed for want of a browser page left none to picture: no
# place in the browser, or the session already gone.
NO_PAGE_REASONS = frozenset({"TOO_MANY_SESSIONS", "SESSION_NOT_FOUND", "SESSION_CLOSED"})


def picture_of(task_id: str, step: tasks.Step) -> str:
    """The address of the picture of the page the step left, if it may have one."""
    if not task_id or step.tool not in PAGE_TOOLS or step.state not in PICTURED_STATES:
        return ""
    if step.reason_code in NO_PAGE_REASONS:
        return ""
    return f"/tasks/{task_id}/steps/{step.number}/page"


def describe_step(
    step: tasks.Step,
    found: Found | None = None,
    *,
    number: int = 0,
    at: str = "",
    clock: str = "",
    task_id: str = "",
) -> Line | None:
    """The step's line, from its facts and what the services said of its
    claim, approval and payment (`found`); None for a step that is no line
    (the finish: the task's badge shows the end). With the step's `task_id`,
    the picture of the page it left is folded under it."""
    if step.tool in words.HIDDEN_TOOLS:
        return None
    found = found or Found()
    form_kind = _form_kind(step, found) if step.tool in FORM_TOOLS else ""
    key = f"{step.tool}/{form_kind}"
    forms = words.STEP_WORDS.get(key) or words.STEP_WORDS.get(step.tool) or words.STEP_WORDS[""]
    check, paid = _check(step, found), _paid(step, found)
    template = forms if isinstance(forms, str) else forms[_phase(step, check, paid)]
    title = template.format(**_values(step, found)) + _said(step, form_kind, check, paid)
    made = Line(
        number,
        "step",
        at,
        title,
        badge=words.STEP_BADGES[_badge_key(step, check, paid, found)],
        step=step.number,
        clock=clock,
        folded=_folded(step, found),
        picture=picture_of(task_id, step),
    )
    if step.state in (tasks.STEP_STATE_FAILED, tasks.STEP_STATE_NOT_RUN):
        made.detail = words.step_reason(step.reason_code, step.state)
    if (approval := found.approval) is not None:
        made.more_badges.append(words.badge(words.APPROVAL, approval.state))
        if approval.execution_state:
            made.more_badges.append(words.badge(words.EXECUTION, approval.execution_state))
        if approval.possible_duplicate_of:
            made.extra.append(words.MAY_REPEAT)
    if (payment := found.payment) is not None and step.tool not in PAY_TOOLS:
        # Asking shows what you decided; paying says what the shop said.
        made.more_badges.append(words.badge(words.PAYMENT_DECIDED, payment.state))
    if step.resolution:
        made.extra.append(words.RESOLUTION.get(step.resolution, ""))
    elif _may_have_happened(step, found):
        made.explanation = words.UNCERTAIN_MEANS
    made.extra.extend(found.silent)
    if step.HasField("look"):
        made.look = look_shown(task_id, step)
    return made


def look_shown(task_id: str, step: tasks.Step) -> LookShown:
    """What nod's look found, in words, with the page it saw."""
    look = step.look
    where = words.look_place(look.url)
    text = words.LOOKED.format(where=where, at=words.when(look.looked_at), found=look.sentence)
    picture = f"/tasks/{task_id}/steps/{step.number}/look" if task_id and look.has_image else ""
    return LookShown(words.LOOK_BADGES[look.finding], text, picture)
