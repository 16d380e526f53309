"""The browser service as the tasks service calls it: a task's session,
the page as typed values (already masked there), and private entries."""

import asyncio
import itertools
from dataclasses import dataclass
from typing import Any

import grpc
from pydantic import SecretStr

from nod.browser.v1 import browser_pb2 as pb
from nod.browser.v1 import browser_pb2_grpc
from nod.claims.v1 import claims_pb2
from nod_tasks.adapters.claims import claim_of
from nod_tasks.adapters.enums import to_proto
from nod_tasks.domain.outside import Claim, Entry
from nod_tasks.domain.pages import Frame, Notice, OpenPage, Page, PageControl, PageField
from nod_tasks.domain.pictures import PagePicture
from nodkit.client import NodRpcError
from nodkit.logging import get_logger
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


log = get_logger("nod_tasks.browser")

# A session lives in the Chromium of the browser replica that opened it.
# With several replicas, the session's handle in the tasks service names that
# replica: "<session id>@<the replica's address>".
REPLICA_MARK = "@"
SESSION_NOT_FOUND = "SESSION_NOT_FOUND"
# A replica with every place taken; a place frees as a task ends (or idles).
FULL = "TOO_MANY_SESSIONS"
FIRST_PAUSE_S = 0.25
LAST_PAUSE_S = 2.0


@dataclass(frozen=True)
class Looked:
    """What a look saw: the page, its picture (None when none was taken),
    and the look's own session, to close once read."""

    page: Page
    picture: PagePicture | None
    session_id: str


@dataclass(frozen=True)
class Replica:
    address: str
    peer: Peer
    stub: Any  # BrowserServiceStub on the peer's asyncio channel


class BrowserPeer:
    """The browser service: one replica, or several listed in `address`
    (comma-separated). A session is opened on the next replica in turn and
    every later call for it goes to that replica alone: never to another,
    which would show another page or none. A handle naming a replica no
    longer listed answers SESSION_NOT_FOUND, as a session the browser lost
    does (the task then opens a new one and says so)."""

    def __init__(
        self,
        address: str,
        token: SecretStr | None,
        timeout_s: float,
        *,
        tls: Tls | None = None,
        session_wait_s: float = 60.0,
    ) -> None:
        self._session_wait_s = session_wait_s
        self._replicas: dict[str, Replica] = {}
        for listed in (part.strip() for part in address.split(",")):
            peer = Peer(listed, token, timeout_s, SERVICES, name="browser", tls=tls)
            stub = peer.stub(browser_pb2_grpc.BrowserServiceStub)
            self._replicas[listed] = Replica(listed, peer, stub)
        self._turns = itertools.cycle(list(self._replicas.values()))

    @property
    def _several(self) -> bool:
        return len(self._replicas) > 1

    def _route(self, handle: str) -> tuple[Replica, str]:
        """The replica holding the session, and the session's id there."""
        if not self._several or REPLICA_MARK not in handle:
            # One replica, or a session opened before there were several.
            return next(iter(self._replicas.values())), handle
        session_id, address = handle.rsplit(REPLICA_MARK, 1)
        replica = self._replicas.get(address)
        if replica is None:
            raise NodRpcError.refused_here(
                grpc.StatusCode.NOT_FOUND,
                "the session's browser replica is no longer one of this service's",
                SESSION_NOT_FOUND,
            )
        return replica, session_id

    async def _page(self, owner: str, handle: str, method: str, **fields: Any) -> Page:
        """A page call on the session's own replica."""
        replica, session_id = self._route(handle)
        request = getattr(pb, f"{method}Request")(session_id=session_id, **fields)
        reply = await replica.peer.call(getattr(replica.stub, method), request, owner)
        return page_of(reply.page)

    async def open_session(self, owner: str, task_id: str) -> str:
        """A new session on the next replica in turn. A full replica (every
        place taken: TOO_MANY_SESSIONS) sends it to the next; when all are
        full it waits for a place, up to session_wait_s, rather than fail
        the task's step (a session is no action on any site: asking again
        is safe). The wait is bounded by the step's own deadline too."""
        request = pb.OpenSessionRequest(task_id=task_id)
        loop = asyncio.get_running_loop()
        give_up_at = loop.time() + self._session_wait_s
        pause = FIRST_PAUSE_S
        while True:
            for _ in range(len(self._replicas)):
                replica = next(self._turns)
                try:
                    reply = await replica.peer.call(replica.stub.OpenSession, request, owner)
                except NodRpcError as error:
                    if error.reason != FULL or loop.time() >= give_up_at:
                        raise
                    continue
                session_id = reply.session_id
                return (
                    f"{session_id}{REPLICA_MARK}{replica.address}" if self._several else session_id
                )
            log.info("browser.waiting_for_a_place", task_id=task_id, pause_s=pause)
            await asyncio.sleep(min(pause, max(0.0, give_up_at - loop.time())))
            pause = min(pause * 2, LAST_PAUSE_S)

    async def navigate(self, owner: str, session_id: str, url: str) -> Page:
        return await self._page(owner, session_id, "Navigate", url=url)

    async def read_page(self, owner: str, session_id: str, *, settle: bool = False) -> Page:
        """settle: wait (bounded) for the page to load and go quiet first."""
        return await self._page(owner, session_id, "ReadPage", settle=settle)

    async def click(self, owner: str, session_id: str, target: str) -> Page:
        return await self._page(owner, session_id, "Click", target=target)

    async def type_text(self, owner: str, session_id: str, target: str, text: str) -> Page:
        return await self._page(owner, session_id, "TypeText", target=target, text=text)

    async def select_option(self, owner: str, session_id: str, target: str, option: str) -> Page:
        return await self._page(owner, session_id, "SelectOption", target=target, option=option)

    async def set_checked(self, owner: str, session_id: str, target: str, checked: bool) -> Page:
        return await self._page(owner, session_id, "SetChecked", target=target, checked=checked)

    async def press_key(self, owner: str, session_id: str, target: str, key: str) -> Page:
        return await self._page(owner, session_id, "PressKey", target=target, key=key)

    async def scroll(self, owner: str, session_id: str, target: str, pages: int) -> Page:
        return await self._page(owner, session_id, "Scroll", target=target, pages=pages)

    async def go_back(self, owner: str, session_id: str) -> Page:
        return await self._page(owner, session_id, "GoBack")

    async def switch_page(self, owner: str, session_id: str, page_id: str) -> Page:
        return await self._page(owner, session_id, "SwitchPage", page_id=page_id)

    async def screenshot(self, owner: str, session_id: str, *, timeout_s: float) -> PagePicture:
        """The picture of the session's page (the person's, never the
        model's), private values painted over by the browser."""
        replica, on_replica = self._route(session_id)
        request = pb.ScreenshotRequest(session_id=on_replica)
        reply = await replica.peer.call(
            replica.stub.Screenshot, request, owner, timeout_s=timeout_s
        )
        return PagePicture(reply.image, reply.media_type)

    async def enter_private(
        self, owner: str, session_id: str, entry: Entry, *, timeout_s: float
    ) -> Claim:
        """The claim as the entry ended (or as it stands, when not granted)."""
        replica, on_replica = self._route(session_id)
        request = pb.EnterPrivateRequest(
            session_id=on_replica,
            operation_id=entry.operation_id,
            kind=to_proto(claims_pb2.EntryKind, entry.kind),
            item_id=entry.item_id,
            fields=entry.fields,
            submit=entry.submit,
            companion_entry_id=entry.companion_entry_id,
        )
        reply = await replica.peer.call(
            replica.stub.EnterPrivate, request, owner, timeout_s=timeout_s
        )
        return claim_of(reply.claim)

    async def look(
        self, owner: str, task_id: str, session_id: str | None, url: str, *, timeout_s: float
    ) -> Looked:
        """A read-only look at `url` (BrowserService/Look): from the task's
        session (its cookies, on its replica), or from a new one with none."""
        if session_id:
            replica, on_replica = self._route(session_id)
        else:
            replica, on_replica = next(self._turns), ""
        request = pb.LookRequest(session_id=on_replica, task_id=task_id, url=url)
        reply = await replica.peer.call(replica.stub.Look, request, owner, timeout_s=timeout_s)
        picture = PagePicture(reply.image, reply.media_type) if reply.image else None
        handle = reply.session_id
        if self._several:
            handle = f"{handle}{REPLICA_MARK}{replica.address}"
        return Looked(page_of(reply.page), picture, handle)

    async def close_session(self, owner: str, session_id: str) -> None:
        replica, on_replica = self._route(session_id)
        request = pb.CloseSessionRequest(session_id=on_replica)
        await replica.peer.call(replica.stub.CloseSession, request, owner)

    async def close_task_sessions(self, owner: str, task_id: str) -> None:
        """On every replica (a task may have had sessions on several); the
        first failure is raised once each has been asked."""
        request = pb.CloseTaskSessionsRequest(task_id=task_id)
        asked = await asyncio.gather(
            *(
                replica.peer.call(replica.stub.CloseTaskSessions, request, owner)
                for replica in self._replicas.values()
            ),
            return_exceptions=True,
        )
        for outcome in asked:
            if isinstance(outcome, BaseException):
                raise outcome

    async def close(self) -> None:
        for replica in self._replicas.values():
            await replica.peer.close()
