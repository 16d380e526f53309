"""gRPC <-> the runner's use cases: each method checks the person and the
input, runs one use case on the session (as a task the session can cancel)
and builds the reply."""

from nod.browser.v1 import browser_pb2 as pb
from nod.browser.v1 import browser_pb2_grpc
from nod_browser.adapters.chromium import Chromium
from nod_browser.adapters.egress_proxy import EgressProxy
from nod_browser.adapters.painter import Painter
from nod_browser.api.convert import entry_request, page_to_pb, session_to_pb
from nod_browser.app import browsing, looking, widgets
from nod_browser.app.private_entry import PrivateEntries
from nod_browser.app.sessions import Session, SessionCopy, Sessions
from nod_browser.domain.addresses import check_url
from nod_browser.domain.entry import check_entry_request
from nod_browser.domain.targets import check_target
from nod_browser.settings import BrowserSettings
from nodkit import validation
from nodkit.errors import NotFound
from nodkit.identity import current_user

MAX_TEXT = 10_000


class BrowserServicer(browser_pb2_grpc.BrowserServiceServicer):
    def __init__(
        self,
        chromium: Chromium,
        egress: EgressProxy,
        sessions: Sessions,
        entries: PrivateEntries,
        settings: BrowserSettings,
        painter: Painter,
    ) -> None:
        self._chromium = chromium
        self._egress = egress
        self._sessions = sessions
        self._entries = entries
        self._settings = settings
        self._painter = painter

    def _session(self, session_id: str) -> Session:
        owner = current_user()
        session = self._sessions.get(owner, validation.uuid_id("session_id", session_id))
        session.leave_closed_page()
        return session

    def _task_session(self, session_id: str, task_id: str) -> Session:
        """The caller's session, and the task's when one is named: another
        task's session is as unknown to the call as another person's."""
        session = self._session(session_id)
        if task_id and session.task_id != validation.printable_id("task_id", task_id):
            raise NotFound("no such session", reason="SESSION_NOT_FOUND")
        return session

    def _acting_session(self, session_id: str) -> Session:
        """The session an action (a click, typing, a private entry) works on:
        never one a look has made read-only, checked before anything else
        of the request, the page or the claims."""
        session = self._session(session_id)
        session.refuse_if_read_only()
        return session

    async def _page(self, session: Session, *, settle: bool = False) -> pb.Page:
        page = await session.run(browsing.read(session, self._settings, settle=settle))
        return page_to_pb(page)

    async def _open(
        self, task_id: str, *, read_only: bool = False, copied: SessionCopy | None = None
    ) -> Session:
        """A new session of the caller's for the task (no cookies, unless
        copied from another), counted against the runner's limit."""
        task_id = validation.printable_id("task_id", task_id)
        return await browsing.open_session(
            self._chromium,
            self._egress,
            self._sessions,
            self._settings,
            current_user(),
            task_id,
            read_only=read_only,
            copied=copied,
        )

    async def OpenSession(self, request, context) -> pb.OpenSessionResponse:
        session = await self._open(request.task_id)
        return pb.OpenSessionResponse(session_id=session.id)

    async def Navigate(self, request, context) -> pb.NavigateResponse:
        session = self._session(request.session_id)
        url = check_url(request.url)
        await session.run(browsing.navigate(session, url, self._settings))
        return pb.NavigateResponse(page=await self._page(session))

    async def ReadPage(self, request, context) -> pb.ReadPageResponse:
        session = self._session(request.session_id)
        return pb.ReadPageResponse(page=await self._page(session, settle=request.settle))

    async def Click(self, request, context) -> pb.ClickResponse:
        session = self._acting_session(request.session_id)
        target = check_target("target", request.target)
        await session.run(browsing.click(session, target, self._settings))
        return pb.ClickResponse(page=await self._page(session))

    async def TypeText(self, request, context) -> pb.TypeTextResponse:
        session = self._acting_session(request.session_id)
        target = check_target("target", request.target)
        text = validation.text("text", request.text, max_length=MAX_TEXT)
        await session.run(browsing.type_text(session, target, text, self._settings))
        return pb.TypeTextResponse(page=await self._page(session))

    async def SelectOption(self, request, context) -> pb.SelectOptionResponse:
        session = self._acting_session(request.session_id)
        target = check_target("target", request.target)
        option = validation.text("option", request.option, max_length=500, required=True)
        await session.run(widgets.select_option(session, target, option, self._settings))
        return pb.SelectOptionResponse(page=await self._page(session))

    async def SetChecked(self, request, context) -> pb.SetCheckedResponse:
        session = self._acting_session(request.session_id)
        target = check_target("target", request.target)
        await session.run(widgets.set_checked(session, target, request.checked, self._settings))
        return pb.SetCheckedResponse(page=await self._page(session))

    async def PressKey(self, request, context) -> pb.PressKeyResponse:
        session = self._acting_session(request.session_id)
        target = check_target("target", request.target) if request.target else ""
        key = widgets.check_key(request.key)
        await session.run(widgets.press_key(session, target, key, self._settings))
        return pb.PressKeyResponse(page=await self._page(session))

    async def Scroll(self, request, context) -> pb.ScrollResponse:
        session = self._session(request.session_id)
        target = check_target("target", request.target) if request.target else ""
        await session.run(widgets.scroll(session, target, request.pages, self._settings))
        return pb.ScrollResponse(page=await self._page(session))

    async def GoBack(self, request, context) -> pb.GoBackResponse:
        session = self._session(request.session_id)
        await session.run(widgets.go_back(session, self._settings))
        return pb.GoBackResponse(page=await self._page(session))

    async def SwitchPage(self, request, context) -> pb.SwitchPageResponse:
        session = self._session(request.session_id)
        session.switch_to(validation.printable_id("page_id", request.page_id))
        return pb.SwitchPageResponse(page=await self._page(session))

    async def EnterPrivate(self, request, context) -> pb.EnterPrivateResponse:
        session = self._acting_session(request.session_id)
        entry = check_entry_request(entry_request(request))
        result = await session.run(self._entries.enter(session, entry))
        return pb.EnterPrivateResponse(claim=result.claim, entered=result.entered)

    async def CloseSession(self, request, context) -> pb.CloseSessionResponse:
        await self._sessions.close([self._session(request.session_id)])
        return pb.CloseSessionResponse()

    async def CloseTaskSessions(self, request, context) -> pb.CloseTaskSessionsResponse:
        owner = current_user()
        task_id = validation.printable_id("task_id", request.task_id)
        closed = await self._sessions.close(self._sessions.of_person(owner, task_id))
        return pb.CloseTaskSessionsResponse(closed=closed)

    async def ListSessions(self, request, context) -> pb.ListSessionsResponse:
        owner = current_user()
        task_id = validation.printable_id("task_id", request.task_id) if request.task_id else None
        sessions = self._sessions.of_person(owner, task_id)
        return pb.ListSessionsResponse(sessions=[session_to_pb(s) for s in sessions])

    async def Screenshot(self, request, context) -> pb.ScreenshotResponse:
        """The person's picture of the page (their task's timeline shows it
        under a step); it is never part of a page read, so never the model's."""
        session = self._session(request.session_id)
        taken = await session.run(browsing.picture(session, self._painter, self._settings))
        return pb.ScreenshotResponse(
            image=taken.image, media_type=taken.media_type, width=taken.width, height=taken.height
        )

    async def Look(self, request, context) -> pb.LookResponse:
        """A read-only check of where an uncertain result would show (G14),
        always from a new read-only session (see looking.py): with a
        session_id, one that starts with copies of that session's cookies,
        storage and entered values, which is itself left as it was. The
        address is checked before any session is touched or opened; a
        resend simply looks again."""
        url = check_url(request.url)
        if request.session_id:
            source = self._task_session(request.session_id, request.task_id)
            self._sessions.check_room()  # before anything is copied
            copied = await source.run(source.copy())
            try:
                session = await self._open(source.task_id, read_only=True, copied=copied)
            except BaseException:
                copied.forget()
                raise
        else:
            source, session = None, await self._open(request.task_id, read_only=True)
        looked = await looking.look_in_new_session(
            self._sessions, session, url, self._painter, self._settings, looked_from=source
        )
        taken = looked.picture
        return pb.LookResponse(
            session_id=session.id,
            page=page_to_pb(looked.page),
            image=taken.image if taken else b"",
            media_type=taken.media_type if taken else "",
        )
