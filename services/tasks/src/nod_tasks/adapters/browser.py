"""The browser service as the tasks service calls it: a task's session,
the page as typed values (already masked there), and private entries."""

from pydantic import SecretStr

from nod.browser.v1 import browser_pb2 as pb
from nod.browser.v1 import browser_pb2_grpc
from nod.claims.v1 import claims_pb2
from nod_tasks.adapters.claims import claim_of
from nod_tasks.adapters.enums import to_proto
from nod_tasks.domain.outside import Claim, Entry
from nod_tasks.domain.pages import Frame, Notice, OpenPage, Page, PageControl, PageField
from nodkit.peers import Peer
from nodkit.tls import Tls

SERVICES = [pb.DESCRIPTOR.services_by_name["BrowserService"]]


def field_of(f: pb.Field) -> PageField:
    return PageField(
        ref=f.ref,
        name=f.name,
        type=f.type,
        label=f.label,
        value=f.value,
        masked=f.masked,
        filled=f.filled,
        private_kind=f.private_kind,
        invalid=f.invalid,
        required=f.required,
        checked=f.checked,
        options=tuple(f.options),
        boxes=f.boxes,
        disabled=f.disabled,
        frame_id=f.frame_id,
        in_shadow_root=f.in_shadow_root,
    )


def control_of(c: pb.Control) -> PageControl:
    return PageControl(
        ref=c.ref,
        kind=c.kind,
        text=c.text,
        href=c.href,
        disabled=c.disabled,
        pressed=c.pressed,
        selected=c.selected,
        expanded=c.expanded,
        frame_id=c.frame_id,
        in_shadow_root=c.in_shadow_root,
    )


def page_of(page: pb.Page) -> Page:
    return Page(
        url=page.url,
        title=page.title,
        text=page.text,
        fields=tuple(field_of(f) for f in page.fields),
        controls=tuple(control_of(c) for c in page.controls),
        notices=tuple(Notice(n.kind, n.text) for n in page.notices),
        login_form=page.login_form_present,
        code_form=page.code_form_present,
        payment_form=page.payment_form_present,
        frames=tuple(
            Frame(f.frame_id, f.url, f.origin, f.parent_frame_id, f.title) for f in page.frames
        ),
        headings=tuple(page.headings),
        pages=tuple(
            OpenPage(p.page_id, p.url, p.title, p.current, p.opener_page_id) for p in page.pages
        ),
        sign_out=page.sign_out_present,
        overlay=page.overlay_present,
    )


class BrowserPeer:
    def __init__(
        self, address: str, token: SecretStr | None, timeout_s: float, *, tls: Tls | None = None
    ) -> None:
        self._peer = Peer(address, token, timeout_s, SERVICES, name="browser", tls=tls)
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

    async def select_option(self, owner: str, session_id: str, target: str, option: str) -> Page:
        request = pb.SelectOptionRequest(session_id=session_id, target=target, option=option)
        return page_of((await self._peer.call(self._stub.SelectOption, request, owner)).page)

    async def set_checked(self, owner: str, session_id: str, target: str, checked: bool) -> Page:
        request = pb.SetCheckedRequest(session_id=session_id, target=target, checked=checked)
        return page_of((await self._peer.call(self._stub.SetChecked, request, owner)).page)

    async def press_key(self, owner: str, session_id: str, target: str, key: str) -> Page:
        request = pb.PressKeyRequest(session_id=session_id, target=target, key=key)
        return page_of((await self._peer.call(self._stub.PressKey, request, owner)).page)

    async def scroll(self, owner: str, session_id: str, target: str, pages: int) -> Page:
        request = pb.ScrollRequest(session_id=session_id, target=target, pages=pages)
        return page_of((await self._peer.call(self._stub.Scroll, request, owner)).page)

    async def go_back(self, owner: str, session_id: str) -> Page:
        request = pb.GoBackRequest(session_id=session_id)
        return page_of((await self._peer.call(self._stub.GoBack, request, owner)).page)

    async def switch_page(self, owner: str, session_id: str, page_id: str) -> Page:
        request = pb.SwitchPageRequest(session_id=session_id, page_id=page_id)
        return page_of((await self._peer.call(self._stub.SwitchPage, request, owner)).page)

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
