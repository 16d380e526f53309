"""Look for me (G14): a read-only look at where an uncertain step's result
would show, kept beside the step as evidence for the person.

- An app action: the app's own list of what it received, at the status
  address its account names, from a new session with no cookies; found
  when the list names this execution's id (sent as its idempotency key).
- A payment: the merchant's order list, reached from its home page by a
  link the shop shows, in a copy of the task's session (its cookies);
  found when an order of this amount is listed with a time since the card
  went in.
- A sign-in or a code: the site's account page, the same way; found when
  it shows the person signed in.

The browser enforces read-only (no press, no typing, no private value, no
request but GET); a look whose session is gone never signs in again. The
step's state is never touched: it stays UNCERTAIN, and the person decides.
"""

from dataclasses import replace

from nod_tasks.adapters.browser import SESSION_NOT_FOUND, Looked
from nod_tasks.adapters.peers import Peers
from nod_tasks.domain import looks
from nod_tasks.domain.looks import Finding, LookKind, StepLook
from nod_tasks.domain.pictures import PagePicture
from nod_tasks.domain.steps import StepRecord, StepState
from nod_tasks.domain.tasks import TaskRecord
from nod_tasks.store.database import Database
from nodkit.client import NodRpcError
from nodkit.errors import FailedPrecondition, InvalidArgument, NotFound
from nodkit.logging import get_logger

log = get_logger("nod_tasks.looks")
# The tools whose uncertain step a sign-in or a code may have reached.
ENTRY_TOOLS = frozenset({"enter_saved_login", "enter_from_private_form"})
# What a look found, and the page it found it on (None: no picture).
Seen = tuple[StepLook, PagePicture | None]


class SessionGone(Exception):
    """The task's session, with the person's sign-in, is closed."""


class Looks:
    def __init__(self, db: Database, peers: Peers, *, timeout_s: float) -> None:
        self._db = db
        self._peers = peers
        self._timeout_s = timeout_s

    async def look_for_me(self, task: TaskRecord, number: int) -> StepLook:
        if number < 1:
            raise InvalidArgument("step", "must be the number of an uncertain step")
        async with self._db.reads() as tx:
            every_step = await tx.steps.of_task(task.id)
        step = next((s for s in every_step if s.number == number), None)
        if step is None:
            raise NotFound("the task has no such step", reason="NO_SUCH_STEP")
        if step.state != StepState.UNCERTAIN:
            raise FailedPrecondition(
                "nod looks only at a step that may have happened", reason="NOT_UNCERTAIN"
            )
        found, picture = await self._look(task, step, every_step)
        found = replace(found, has_image=picture is not None)
        async with self._db.transaction() as tx:
            await tx.looks.keep(task.id, step, found, picture)
        log.info(
            "step.looked", task_id=task.id, step=number, finding=found.finding.value, url=found.url
        )
        return found

    async def _look(self, task: TaskRecord, step: StepRecord, every_step: list[StepRecord]) -> Seen:
        kind = _kind_of(step)
        if kind == LookKind.APP:
            return await self._look_at_app(task, step)
        try:
            if kind == LookKind.ORDER:
                return await self._look_at_orders(task, step)
            if kind == LookKind.SIGN_IN:
                return await self._look_at_account(task, step, every_step)
        except SessionGone:
            return looks.look(step.number, Finding.NOTHING_TO_READ, looks.SESSION_GONE), None
        nothing = "nod knows no page where this step's result would show. Check there yourself."
        return looks.look(step.number, Finding.NOTHING_TO_READ, nothing), None

    async def _look_at_app(self, task: TaskRecord, step: StepRecord) -> Seen:
        assert step.approval_id is not None
        place = await self._peers.approvals.look_place(task.owner, step.approval_id)
        if place.app == "smtp":
            return looks.look(step.number, Finding.NOTHING_TO_READ, looks.EMAIL_NO_PLACE), None
        if not place.status_url:
            return looks.look(step.number, Finding.NOTHING_TO_READ, looks.APP_NO_PLACE), None
        seen = await self._see(task, None, place.url)
        if looks.received(seen.page, place.execution_id):
            sentence = looks.APP_SEEN.format(key=place.execution_id[:8])
            return looks.look(step.number, Finding.FOUND, sentence, seen.page.url), seen.picture
        return self._no_sign(step, seen, looks.APP_NOT_SEEN)

    async def _look_at_orders(self, task: TaskRecord, step: StepRecord) -> Seen:
        assert step.payment_id is not None
        payment = await self._peers.payments.get(task.owner, step.payment_id)
        amount = looks.money(payment.amount_minor, payment.currency)
        origin = payment.merchant_origin
        home = await self._see(task, self._kept_session(task), f"{origin}/")
        orders_url = looks.link_to(home.page, looks.ORDER_LINKS, origin)
        if not orders_url:
            return self._no_sign(step, home, looks.ORDER_NO_LIST)
        seen = await self._see(task, self._kept_session(task), orders_url)
        since = payment.started_at or step.started_at
        at = looks.order_since(seen.page, payment.amount_minor, payment.currency, since)
        if at is None:
            return self._no_sign(step, seen, looks.ORDER_NOT_SEEN.format(amount=amount))
        sentence = looks.ORDER_SEEN.format(amount=amount, at=f"{at:%Y-%m-%d %H:%M:%S %Z}")
        return looks.look(step.number, Finding.FOUND, sentence, seen.page.url), seen.picture

    async def _look_at_account(
        self, task: TaskRecord, step: StepRecord, every_step: list[StepRecord]
    ) -> Seen:
        origin = await self._site_of_entry(task, step, every_step)
        if not origin:
            nothing = "nod doesn't know which site this entry went to. Check there yourself."
            return looks.look(step.number, Finding.NOTHING_TO_READ, nothing), None
        home = await self._see(task, self._kept_session(task), f"{origin}/")
        account_url = looks.link_to(home.page, looks.ACCOUNT_LINKS, origin)
        seen = home
        if account_url:
            seen = await self._see(task, self._kept_session(task), account_url)
        if looks.signed_in(seen.page):
            return (
                looks.look(step.number, Finding.FOUND, looks.SIGNED_IN_SEEN, seen.page.url),
                seen.picture,
            )
        why = looks.SIGNED_IN_NOT_SEEN if account_url else looks.NO_ACCOUNT_PAGE
        return self._no_sign(step, seen, why)

    async def _site_of_entry(
        self, task: TaskRecord, step: StepRecord, every_step: list[StepRecord]
    ) -> str:
        """The site the entry was for: its saved login's, else the page the
        task last read before it (the browser's read, not the model's words)."""
        if step.subject.login_id:
            logins, _cards = await self._peers.claims.saved_items(task.owner)
            for login in logins:
                if login.id == step.subject.login_id:
                    return login.origin
        return looks.page_origin_before(every_step, step.number)

    @staticmethod
    def _kept_session(task: TaskRecord) -> str:
        if not task.session_id:
            raise SessionGone
        return task.session_id

    async def _see(self, task: TaskRecord, session_id: str | None, url: str) -> Looked:
        """One look; its own session is closed once read."""
        browser = self._peers.browser
        try:
            seen = await browser.look(
                task.owner, task.id, session_id, url, timeout_s=self._timeout_s
            )
        except NodRpcError as error:
            if session_id and error.reason == SESSION_NOT_FOUND:
                raise SessionGone from error
            raise
        try:
            await browser.close_session(task.owner, seen.session_id)
        except NodRpcError as error:  # the browser's idle reaper closes it later
            log.warning("look.session_not_closed", task_id=task.id, status=error.code.name)
        return seen

    @staticmethod
    def _no_sign(step: StepRecord, seen: Looked, sentence: str) -> Seen:
        if not seen.page.readable:
            sentence = looks.UNREADABLE
        return looks.look(step.number, Finding.NO_SIGN, sentence, seen.page.url), seen.picture


def _kind_of(step: StepRecord) -> LookKind | None:
    if step.approval_id:
        return LookKind.APP
    if step.payment_id:
        return LookKind.ORDER
    if step.tool in ENTRY_TOOLS:
        return LookKind.SIGN_IN
    return None
