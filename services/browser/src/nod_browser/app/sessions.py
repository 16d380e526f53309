"""Live sessions: one isolated browser context each, owned by one person.

Each call that works on a session runs as a task the session tracks, so
closing a session (CloseSession, CloseTaskSessions on Stop, shutdown)
cancels what is still running on it before its context is closed.
"""

import asyncio
import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TypeVar

from playwright.async_api import BrowserContext, Page, StorageState

from nod_browser.adapters.frame_ids import FrameIds
from nod_browser.adapters.network_activity import NetworkActivity
from nod_browser.adapters.read_only import ReadOnly
from nod_browser.adapters.request_guard import SubmitAnswers
from nod_browser.adapters.value_guard import ValueGuard
from nod_browser.domain.shown_back import EnteredValues
from nodkit import context as call_context
from nodkit.errors import FailedPrecondition, NotFound, ResourceExhausted
from nodkit.logging import get_logger

log = get_logger("nod_browser.sessions")
T = TypeVar("T")
# How long cancelled calls get to settle their claims before the context closes.
SETTLE_GRACE_S = 10.0


@dataclass(frozen=True)
class SessionCopy:
    """What a look's session starts with, copied from the session it looks
    from (the task's, with the person's sign-in): its cookies and storage,
    and what its masks and its value guard know of the values entered there,
    so the look's reads and picture hide all that the source's would. Taken
    once: what either session learns later, the other never does."""

    storage: StorageState = field(repr=False)
    entered: EnteredValues = field(repr=False)
    value_guard: ValueGuard = field(repr=False)

    def forget(self) -> None:
        """Its values, when no session was opened with it."""
        self.entered.forget()
        self.value_guard.forget()


@dataclass(eq=False)
class Session:
    id: str
    owner: str
    task_id: str
    context: BrowserContext
    page: Page
    # The context's request guard: it tells an entry when its submission was answered.
    submit_answers: SubmitAnswers
    # The values entered here and where each may go: no request takes one elsewhere.
    value_guard: ValueGuard = field(default_factory=ValueGuard, repr=False)
    # On for a look's session, from its birth (G14): its pages send nothing
    # but reads, and no call acts on it.
    read_only: ReadOnly = field(default_factory=ReadOnly)
    created_at: datetime = field(default_factory=lambda: datetime.now(UTC))
    # The calls running on it, each with its request id.
    calls: dict[asyncio.Task, str | None] = field(default_factory=dict)
    # The private values entered here, masked in every read for as long as
    # the session lives (and only here: never logged, gone when it closes).
    entered: EnteredValues = field(default_factory=EnteredValues, repr=False)
    closed: bool = False
    # Every page of the session by its id ("p0" first), in the order the
    # site opened them; `page` is the current one.
    pages: dict[str, Page] = field(default_factory=dict)
    # The ids its reads gave the frames ("f1", ...), which its actions resolve.
    frames: FrameIds = field(default_factory=FrameIds)
    # Its requests in every frame and page: a read after a submission waits for quiet.
    network: NetworkActivity = field(init=False)
    # When a call on it last ended (or it opened), on the monotonic clock.
    last_used: float = field(default_factory=time.monotonic)

    def __post_init__(self) -> None:
        self.pages["p0"] = self.page
        self.network = NetworkActivity(self.context)
        self.context.on("page", self._opened)

    def _opened(self, page: Page) -> None:
        """A page the site opened (a popup, a new tab): listed, not switched to."""
        self.pages[f"p{len(self.pages)}"] = page

    def page_id(self, page: Page | None) -> str:
        return next((pid for pid, known in self.pages.items() if known is page), "")

    def leave_closed_page(self) -> None:
        """A page that closed itself (a bank's popup, once answered) leaves
        reads and actions to the last page still open."""
        if not self.page.is_closed():
            return
        still_open = [page for page in self.pages.values() if not page.is_closed()]
        if still_open:
            self.page = still_open[-1]

    def switch_to(self, page_id: str) -> None:
        page = self.pages.get(page_id)
        if page is None or page.is_closed():
            raise FailedPrecondition(
                "page_id: no such open page in this session", reason="NO_SUCH_PAGE"
            )
        self.page = page

    async def copy(self) -> SessionCopy:
        """What a look from this session starts with. This session is left as
        it was: its cookies and storage are read (Playwright collects those
        of origins its pages are not on in a hidden page of its own, whose
        requests are answered in the browser and never leave), not moved."""
        storage = await self.context.storage_state()
        return SessionCopy(storage, self.entered.copy(), self.value_guard.copy())

    def turn_read_only(self) -> None:
        """For the rest of its life, before a look takes it anywhere (a look's
        session is born read-only: then this changes nothing)."""
        if not self.read_only.on:
            self.read_only.turn_on()
            log.info("session.read_only", session_id=self.id, task_id=self.task_id)

    def refuse_if_read_only(self) -> None:
        """An action (a click, typing, a key, a private entry) on a look's
        session is refused before it touches the page or claims anything: a
        look only looks, whoever asks next."""
        if self.read_only.on:
            raise FailedPrecondition(
                "this session was used for a look and is read-only: it clicks, types and"
                " enters nothing; open a new session to act",
                reason="READ_ONLY_SESSION",
            )

    async def run(self, work: Awaitable[T]) -> T:
        """Runs one call's work so that closing the session can cancel it."""
        if self.closed:
            raise NotFound("no such session", reason="SESSION_NOT_FOUND")
        task = asyncio.ensure_future(work)
        self.calls[task] = call_context.request_id.get()
        task.add_done_callback(self._call_ended)
        try:
            return await task
        except asyncio.CancelledError:
            caller = asyncio.current_task()
            if caller is not None and caller.cancelling():
                raise  # our own caller went away
            raise FailedPrecondition(
                "the session was closed while this call ran", reason="SESSION_CLOSED"
            ) from None

    def _call_ended(self, call: asyncio.Task) -> None:
        self.calls.pop(call, None)
        self.last_used = time.monotonic()

    def idle_for(self, now: float) -> float:
        """Seconds since its last call ended; 0 while one runs."""
        return 0.0 if self.calls else now - self.last_used

    def about(self) -> dict[str, str]:
        """What a log line written outside any call (the request guard's,
        from Playwright's own task) says it is about: this session, its
        task, and the request id of the one call running on it, if one is."""
        keys = {"session_id": self.id, "task_id": self.task_id}
        running = {request_id for request_id in self.calls.values() if request_id}
        if len(running) == 1:
            keys["request_id"] = running.pop()
        return keys

    async def close(self) -> None:
        self.closed = True
        for task in list(self.calls):
            task.cancel()
        if self.calls:
            await asyncio.wait(list(self.calls), timeout=SETTLE_GRACE_S)
        await self.context.close()
        self.entered.forget()
        self.value_guard.forget()


class Sessions:
    def __init__(
        self, max_sessions: int, closed: Callable[[str], None] = lambda session_id: None
    ) -> None:
        """closed: told each closed session's id (the address guard then
        lets its requests through no more)."""
        self._max = max_sessions
        self._closed = closed
        self._by_id: dict[str, Session] = {}

    @staticmethod
    def new_id() -> str:
        """A session's id, made before its context: the context's requests carry it."""
        return str(uuid.uuid4())

    def add(
        self,
        session_id: str,
        owner: str,
        task_id: str,
        context: BrowserContext,
        page: Page,
        submit_answers: SubmitAnswers,
        value_guard: ValueGuard,
        read_only: ReadOnly,
        entered: EnteredValues | None = None,
    ) -> Session:
        """entered: the values it knows from birth (a look's, copied)."""
        session = Session(
            session_id,
            owner,
            task_id,
            context,
            page,
            submit_answers,
            value_guard,
            read_only,
            entered=entered if entered is not None else EnteredValues(),
        )
        submit_answers.about = value_guard.about = read_only.about = session.about
        self._by_id[session.id] = session
        log.info("session.opened", session_id=session.id, task_id=task_id, read_only=read_only.on)
        return session

    @property
    def open_count(self) -> int:
        return len(self._by_id)

    def check_room(self) -> None:
        if len(self._by_id) >= self._max:
            raise ResourceExhausted(
                f"this runner already has {self._max} open sessions", reason="TOO_MANY_SESSIONS"
            )

    def get(self, owner: str, session_id: str) -> Session:
        session = self._by_id.get(session_id)
        if session is None or session.owner != owner:
            raise NotFound("no such session", reason="SESSION_NOT_FOUND")
        return session

    def of_person(self, owner: str, task_id: str | None = None) -> list[Session]:
        return [
            s
            for s in self._by_id.values()
            if s.owner == owner and (task_id is None or s.task_id == task_id)
        ]

    async def close(self, sessions: list[Session]) -> int:
        for session in sessions:
            self._by_id.pop(session.id, None)
        await asyncio.gather(*(s.close() for s in sessions), return_exceptions=True)
        for session in sessions:
            self._closed(session.id)
            log.info("session.closed", session_id=session.id, task_id=session.task_id)
        return len(sessions)

    async def close_idle(self, idle_s: float) -> int:
        """Closes the sessions no call has used for idle_s: a task that
        waits for its person keeps its page, but not for ever, and one
        whose end was never told (its tasks service gone) can't hold a
        place in this runner and its memory until a restart. The task
        finds its session gone when it next needs it and says so."""
        now = time.monotonic()
        idle = [s for s in self._by_id.values() if s.idle_for(now) >= idle_s]
        for session in idle:
            log.info("session.idle", session_id=session.id, task_id=session.task_id)
        return await self.close(idle)

    async def close_all(self) -> None:
        await self.close(list(self._by_id.values()))
