"""gRPC <-> the runner's operations: each method checks the person and the
input, runs one operation on the session (as a task the session can cancel)
and builds the reply."""

from google.protobuf import json_format

from nod.browser.v1 import browser_pb2 as pb
from nod.browser.v1 import browser_pb2_grpc
from nod.claims.v1 import claims_pb2
from nod_browser import actions
from nod_browser.chromium import Chromium
from nod_browser.domain import EntryKind, EntryRequest, check_entry_request, check_target
from nod_browser.page_reader import read_page
from nod_browser.private_entry import PrivateEntries
from nod_browser.sessions import Session, Sessions
from nod_browser.settings import BrowserSettings
from nodkit import validation
from nodkit.identity import current_user
from nodkit.redaction import redact_value
from nodkit.timestamps import to_proto

KINDS = {
    claims_pb2.ENTRY_KIND_SAVED_LOGIN: EntryKind.SAVED_LOGIN,
    claims_pb2.ENTRY_KIND_ONE_TIME_CODE: EntryKind.ONE_TIME_CODE,
    claims_pb2.ENTRY_KIND_CARD: EntryKind.CARD,
    claims_pb2.ENTRY_KIND_TYPED_PASSWORD: EntryKind.TYPED_PASSWORD,
    claims_pb2.ENTRY_KIND_SECURITY_CODE: EntryKind.SECURITY_CODE,
}
MAX_TEXT = 10_000


class BrowserServicer(browser_pb2_grpc.BrowserServiceServicer):
    def __init__(self, chromium: Chromium, sessions: Sessions, entries: PrivateEntries, settings):
        self._chromium = chromium
        self._sessions = sessions
        self._entries = entries
        self._settings: BrowserSettings = settings

    def _session(self, session_id: str) -> Session:
        owner = current_user()
        return self._sessions.get(owner, validation.uuid_id("session_id", session_id))

    async def _page(self, session: Session) -> pb.Page:
        raw = await read_page(
            session.page,
            max_text=self._settings.max_page_text,
            timeout_s=self._settings.action_timeout_s,
        )
        return json_format.ParseDict(raw, pb.Page())

    async def OpenSession(self, request, context) -> pb.OpenSessionResponse:
        owner = current_user()
        task_id = validation.printable_id("task_id", request.task_id)
        session = await actions.open_session(
            self._chromium, self._sessions, self._settings, owner, task_id
        )
        return pb.OpenSessionResponse(session_id=session.id)

    async def Navigate(self, request, context) -> pb.NavigateResponse:
        session = self._session(request.session_id)
        url = actions.check_url(request.url)
        await session.run(actions.navigate(session, url, self._settings))
        return pb.NavigateResponse(page=await session.run(self._page(session)))

    async def ReadPage(self, request, context) -> pb.ReadPageResponse:
        session = self._session(request.session_id)
        return pb.ReadPageResponse(page=await session.run(self._page(session)))

    async def Click(self, request, context) -> pb.ClickResponse:
        session = self._session(request.session_id)
        target = check_target("target", request.target)
        await session.run(actions.click(session, target, self._settings))
        return pb.ClickResponse(page=await session.run(self._page(session)))

    async def TypeText(self, request, context) -> pb.TypeTextResponse:
        session = self._session(request.session_id)
        target = check_target("target", request.target)
        text = validation.text("text", request.text, max_length=MAX_TEXT)
        await session.run(actions.type_text(session, target, text, self._settings))
        return pb.TypeTextResponse(page=await session.run(self._page(session)))

    async def EnterPrivate(self, request, context) -> pb.EnterPrivateResponse:
        session = self._session(request.session_id)
        entry = check_entry_request(
            EntryRequest(
                operation_id=request.operation_id,
                kind=validation.enum_member("kind", request.kind, KINDS),
                item_id=request.item_id,
                fields=dict(request.fields),
                submit=request.submit or None,
                companion_entry_id=request.companion_entry_id or None,
            )
        )
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
        return pb.ListSessionsResponse(
            sessions=[
                pb.Session(
                    session_id=s.id,
                    task_id=s.task_id,
                    url=redact_value(s.page.url),
                    created_at=to_proto(s.created_at),
                )
                for s in self._sessions.of_person(owner, task_id)
            ]
        )
