"""The browser service as the tasks service calls it: a task's session,
the page as typed values (already masked there), and private entries."""

from pydantic import SecretStr

from nod.browser.v1 import browser_pb2 as pb
from nod.browser.v1 import browser_pb2_grpc
from nod.claims.v1 import claims_pb2
from nod_tasks.adapters.claims import claim_of
from nod_tasks.adapters.enums import to_proto
from nod_tasks.domain.outside import Claim, Entry
from nod_tasks.domain.pages import Notice, Page, PageControl, PageField
from nodkit.peers import Peer

SERVICES = [pb.DESCRIPTOR.services_by_name["BrowserService"]]


def page_of(page: pb.Page) -> Page:
    return Page(
        url=page.url,
        title=page.title,
        text=page.text,
        fields=tuple(
            PageField(f.ref, f.name, f.type, f.label, f.value, f.masked, f.filled)
            for f in page.fields
        ),
        controls=tuple(PageControl(c.ref, c.kind, c.text, c.href) for c in page.controls),
        notices=tuple(Notice(n.kind, n.text) for n in page.notices),
        login_form=page.login_form_present,
        code_form=page.code_form_present,
        payment_form=page.payment_form_present,
    )


class BrowserPeer:
    def __init__(self, address: str, token: SecretStr, timeout_s: float) -> None:
        self._peer = Peer(address, token, timeout_s, SERVICES)
        self._stub = self._peer.stub(browser_pb2_grpc.BrowserServiceStub)

    async def open_session(self, owner: str, task_id: str) -> str:
        request = pb.OpenSessionRequest(task_id=task_id)
        return (await self._peer.call(self._stub.OpenSession, request, owner)).session_id

    async def navigate(self, owner: str, session_id: str, url: str) -> Page:
        request = pb.NavigateRequest(session_id=session_id, url=url)
        return page_of((await self._peer.call(self._stub.Navigate, request, owner)).page)

    async def read_page(self, owner: str, session_id: str, *, settle: bool = False) -> Page:
        """settle: wait (bounded) for the page to load and go quiet first."""
        request = pb.ReadPageRequest(session_id=session_id, settle=settle)
        return page_of((await self._peer.call(self._stub.ReadPage, request, owner)).page)

    async def click(self, owner: str, session_id: str, target: str) -> Page:
        request = pb.ClickRequest(session_id=session_id, target=target)
        return page_of((await self._peer.call(self._stub.Click, request, owner)).page)

    async def type_text(self, owner: str, session_id: str, target: str, text: str) -> Page:
        request = pb.TypeTextRequest(session_id=session_id, target=target, text=text)
        return page_of((await self._peer.call(self._stub.TypeText, request, owner)).page)

    async def enter_private(
        self, owner: str, session_id: str, entry: Entry, *, timeout_s: float
    ) -> Claim:
        """The claim as the entry ended (or as it stands, when not granted)."""
        request = pb.EnterPrivateRequest(
            session_id=session_id,
            operation_id=entry.operation_id,
            kind=to_proto(claims_pb2.EntryKind, entry.kind),
            item_id=entry.item_id,
            fields=entry.fields,
            submit=entry.submit,
            companion_entry_id=entry.companion_entry_id,
        )
        reply = await self._peer.call(self._stub.EnterPrivate, request, owner, timeout_s=timeout_s)
        return claim_of(reply.claim)

    async def close_task_sessions(self, owner: str, task_id: str) -> None:
        request = pb.CloseTaskSessionsRequest(task_id=task_id)
        await self._peer.call(self._stub.CloseTaskSessions, request, owner)

    async def close(self) -> None:
        await self._peer.close()
