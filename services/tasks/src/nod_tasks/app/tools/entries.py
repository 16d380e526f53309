"""enter_saved_login, ask_private_form, enter_from_private_form: private
values go in only through the browser service, under a claim, and never
reach the model (G1, G6)."""

import uuid

from nod_tasks.app.tools.base import Arguments, Outcome, StepContext, WaitFor
from nod_tasks.app.tools.entering import EntryMade, enter, record_check
from nod_tasks.domain import codes, logins, steps
from nod_tasks.domain.checks import Check, check_code, check_login, check_username_step
from nod_tasks.domain.outside import Entry, EntryKind
from nod_tasks.domain.pages import Page, Place, place_on
from nod_tasks.domain.reasons import Reason
from nod_tasks.domain.results import OpenedForm, Submitted, page_of
from nod_tasks.domain.tasks import FormKind, Wait, WaitKind

ASK_KINDS = {k.value: k for k in FormKind}
FORM_ENTRY_KINDS = {
    FormKind.ONE_TIME_CODE: EntryKind.ONE_TIME_CODE,
    FormKind.PASSWORD: EntryKind.TYPED_PASSWORD,
    FormKind.LOGIN: EntryKind.TYPED_PASSWORD,
}


def last_page(ctx: StepContext) -> Page | None:
    """The last page the task read before this step."""
    for step in reversed(ctx.earlier):
        page = page_of(step.result)
        if page is not None and page.url:
            return page
    return None


def form_place(ctx: StepContext, field: str = "") -> Place | None:
    """Where a private form's value will go (G13): the last page the task
    read, and the frame of `field` on it. Set here, never from the model's
    words; the person sees it on the form, and the value is granted only there."""
    page = last_page(ctx)
    return place_on(page, field) if page is not None else None


def login_form(place: Place | None, why: str) -> Wait:
    return Wait(
        WaitKind.PRIVATE_FORM,
        str(uuid.uuid4()),
        prompt=why,
        form_kind=FormKind.LOGIN,
        origin=place.origin if place else "",
        frame_origin=place.frame_origin if place else "",
    )


def _secret_field(fields: dict) -> str:
    """The page field a login's secret went into (the password's, else any)."""
    return str(fields.get("password") or next(iter(fields.values()), ""))


def _entry(ctx: StepContext, kind: EntryKind, item_id: str, args: Arguments) -> Entry:
    return Entry(kind, item_id, dict(args["fields"]), str(args.get("submit", "")), ctx.operation_id)


async def enter_saved_login(ctx: StepContext, args: Arguments) -> Outcome:
    login_id = str(args["login_id"])
    login = next((x for x in ctx.context.logins if x.id == login_id), None)
    if login is None:
        return steps.not_run("there is no saved login with that id", code=Reason.NO_SUCH_ITEM)
    if login_id in logins.refused_logins(ctx.earlier):
        return steps.not_run(logins.REFUSED, code=Reason.LOGIN_DIDNT_GET_THROUGH)
    made = await enter(ctx, _entry(ctx, EntryKind.SAVED_LOGIN, login_id, args))
    if not isinstance(made, EntryMade):
        return made
    signs_in = logins.types_secret(args["fields"])
    check = check_login(made.page) if signs_in else check_username_step(made.page)
    await record_check(ctx, made.claim.id, check)
    opened = None
    if signs_in and check != Check.WORKED:
        # G6: it is not entered again in this task; the person is asked instead.
        why = (
            f"The saved login “{login.label}” did not get through."
            " Pick another or type the password."
        )
        # For the page the saved login was entered on: a typed password goes there only.
        ctx.then_wait = login_form(form_place(ctx, _secret_field(args["fields"])), why)
        opened = OpenedForm(ctx.then_wait.id, FormKind.LOGIN)
    result = Submitted(check, made.claim.id, made.page, login_id=login_id, opened_form=opened)
    return steps.done(result, claim_id=made.claim.id)


async def ask_private_form(ctx: StepContext, args: Arguments) -> Outcome:
    kind = ASK_KINDS[str(args["kind"])]
    if kind == FormKind.ONE_TIME_CODE and not codes.may_ask_again(ctx.earlier):
        return steps.not_run(codes.TOO_MANY, code=Reason.TOO_MANY_CODE_TRIES)
    reason = str(args["reason"]).strip()[:500] or "nod needs a private value from you"
    field = str(args.get("field", ""))
    place = form_place(ctx, field)
    if place is None and kind != FormKind.SECURITY_CODE:
        # A typed value is only ever entered where its form was asked for.
        if field and last_page(ctx) is not None:
            return steps.not_run(
                f"field {field} is not a field of the last page read", code=Reason.BAD_ARGUMENTS
            )
        return steps.not_run(
            "read the page the value is for first (navigate to it)",
            code=Reason.READ_THE_PAGE_FIRST,
        )
    wait = Wait(
        WaitKind.PRIVATE_FORM,
        str(uuid.uuid4()),
        prompt=reason,
        form_kind=kind,
        origin=place.origin if place else "",
        frame_origin=place.frame_origin if place else "",
        step=ctx.step.number,
    )
    return WaitFor(wait)


async def enter_from_private_form(ctx: StepContext, args: Arguments) -> Outcome:
    form = ctx.task.forms.get(str(args["form_id"]))
    if form is None:
        return steps.not_run(
            "no private form with that id was filled in this task", code=Reason.NO_SUCH_ITEM
        )
    if form.kind == FormKind.SECURITY_CODE:
        return steps.not_run(
            "a security code goes in with pay (security_code_form_id)", code=Reason.BAD_ARGUMENTS
        )
    if form.picked_login and form.item_id in logins.refused_logins(ctx.earlier):
        return steps.not_run(logins.REFUSED, code=Reason.LOGIN_DIDNT_GET_THROUGH)
    kind = EntryKind.SAVED_LOGIN if form.picked_login else FORM_ENTRY_KINDS[form.kind]
    made = await enter(ctx, _entry(ctx, kind, form.item_id, args))
    if not isinstance(made, EntryMade):
        return made
    if form.kind == FormKind.ONE_TIME_CODE:
        check = check_code(made.page)
    elif logins.types_secret(args["fields"]):
        check = check_login(made.page)
    else:
        check = check_username_step(made.page)
    await record_check(ctx, made.claim.id, check)
    login_id = form.item_id if form.picked_login else ""
    result = Submitted(
        check, made.claim.id, made.page, login_id=login_id, form_kind=form.kind.value
    )
    return steps.done(result, claim_id=made.claim.id)
