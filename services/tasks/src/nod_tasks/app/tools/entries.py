"""enter_saved_login, ask_private_form, enter_from_private_form: private
values go in only through the browser service, under a claim, and never
reach the model (G1, G6)."""

import uuid
from urllib.parse import urlsplit

from nod_tasks.app.tools.base import Arguments, Outcome, StepContext, WaitFor
from nod_tasks.app.tools.entering import EntryMade, enter, record_check
from nod_tasks.domain import logins, steps
from nod_tasks.domain.checks import Check, check_code, check_login
from nod_tasks.domain.outside import Entry, EntryKind
from nod_tasks.domain.results import OpenedForm, Submitted, page_of
from nod_tasks.domain.tasks import FormKind, Wait, WaitKind

ASK_KINDS = {k.value: k for k in FormKind}
FORM_ENTRY_KINDS = {
    FormKind.ONE_TIME_CODE: EntryKind.ONE_TIME_CODE,
    FormKind.PASSWORD: EntryKind.TYPED_PASSWORD,
    FormKind.LOGIN: EntryKind.TYPED_PASSWORD,
}


def current_origin(ctx: StepContext) -> str:
    """The site of the last page the task saw (a private form names it)."""
    for step in reversed(ctx.earlier):
        page = page_of(step.result)
        if page is not None and page.url:
            parts = urlsplit(page.url)
            return f"{parts.scheme}://{parts.netloc}"
    return ""


def login_form(origin: str, why: str) -> Wait:
    return Wait(
        WaitKind.PRIVATE_FORM,
        str(uuid.uuid4()),
        prompt=why,
        form_kind=FormKind.LOGIN,
        origin=origin,
    )


def _entry(ctx: StepContext, kind: EntryKind, item_id: str, args: Arguments) -> Entry:
    return Entry(kind, item_id, dict(args["fields"]), str(args.get("submit", "")), ctx.operation_id)


async def enter_saved_login(ctx: StepContext, args: Arguments) -> Outcome:
    login_id = str(args["login_id"])
    login = next((x for x in ctx.context.logins if x.id == login_id), None)
    if login is None:
        return steps.not_run("there is no saved login with that id")
    if login_id in logins.refused_logins(ctx.earlier):
        return steps.not_run(logins.REFUSED)
    made = await enter(ctx, _entry(ctx, EntryKind.SAVED_LOGIN, login_id, args))
    if not isinstance(made, EntryMade):
        return made
    check = check_login(made.page)
    await record_check(ctx, made.claim.id, check)
    opened = None
    if check != Check.WORKED:
        # G6: it is not entered again in this task; the person is asked instead.
        why = (
            f"The saved login “{login.label}” did not get through."
            " Pick another or type the password."
        )
        ctx.then_wait = login_form(login.origin, why)
        opened = OpenedForm(ctx.then_wait.id, FormKind.LOGIN)
    result = Submitted(check, made.claim.id, made.page, login_id=login_id, opened_form=opened)
    return steps.done(result, claim_id=made.claim.id)


async def ask_private_form(ctx: StepContext, args: Arguments) -> Outcome:
    kind = ASK_KINDS[str(args["kind"])]
    reason = str(args["reason"]).strip()[:500] or "nod needs a private value from you"
    wait = Wait(
        WaitKind.PRIVATE_FORM,
        str(uuid.uuid4()),
        prompt=reason,
        form_kind=kind,
        origin=current_origin(ctx),
        step=ctx.step.number,
    )
    return WaitFor(wait)


async def enter_from_private_form(ctx: StepContext, args: Arguments) -> Outcome:
    form = ctx.task.forms.get(str(args["form_id"]))
    if form is None:
        return steps.not_run("no private form with that id was filled in this task")
    if form.kind == FormKind.SECURITY_CODE:
        return steps.not_run("a security code goes in with pay (security_code_form_id)")
    if form.picked_login and form.item_id in logins.refused_logins(ctx.earlier):
        return steps.not_run(logins.REFUSED)
    kind = EntryKind.SAVED_LOGIN if form.picked_login else FORM_ENTRY_KINDS[form.kind]
    made = await enter(ctx, _entry(ctx, kind, form.item_id, args))
    if not isinstance(made, EntryMade):
        return made
    is_code = form.kind == FormKind.ONE_TIME_CODE
    check = check_code(made.page) if is_code else check_login(made.page)
    await record_check(ctx, made.claim.id, check)
    login_id = form.item_id if form.picked_login else ""
    result = Submitted(check, made.claim.id, made.page, login_id=login_id)
    return steps.done(result, claim_id=made.claim.id)
