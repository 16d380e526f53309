"""Builders for the browser contract that the browser's tests and the
end-to-end suite share: drive a runner the way the tasks service does.
gRPC only; no service's code (each suite starts its own runner)."""

import asyncio
import inspect
import uuid

from nod.browser.v1 import browser_pb2 as pb
from nod.claims.v1 import claims_pb2
from nodtest.claims import bind_card


async def browser_open(stub, meta, url: str | None = None, task_id: str = "task-1"):
    """Opens a session (and goes to `url`); returns (session_id, page)."""
    reply = await stub.OpenSession(pb.OpenSessionRequest(task_id=task_id), metadata=meta)
    page = None
    if url:
        page = (
            await stub.Navigate(
                pb.NavigateRequest(session_id=reply.session_id, url=url), metadata=meta
            )
        ).page
    return reply.session_id, page


async def browser_read(stub, meta, session_id: str) -> pb.Page:
    return (await stub.ReadPage(pb.ReadPageRequest(session_id=session_id), metadata=meta)).page


def field_ref(page: pb.Page, name: str) -> str:
    return next(f.ref for f in page.fields if f.name == name)


def control_ref(page: pb.Page, text: str, kind: str = "submit") -> str:
    return next(c.ref for c in page.controls if c.kind == kind and c.text.startswith(text))


def enter_request(session_id, item_id, kind, fields, submit, operation_id=None, **extra):
    return pb.EnterPrivateRequest(
        session_id=session_id,
        operation_id=operation_id or f"op-{uuid.uuid4().hex}",
        kind=kind,
        item_id=item_id,
        fields=fields,
        submit=submit,
        **extra,
    )


async def bound_card(
    claims_stub, meta, request: pb.EnterPrivateRequest, merchant_origin: str, **binding
) -> pb.EnterPrivateRequest:
    """`request`, a card's entry, once its operation is bound to the shop
    (as the payments service binds it when the card entry starts)."""
    binding.setdefault("task_id", "task-1")
    await bind_card(
        claims_stub,
        meta,
        operation_id=request.operation_id,
        item_id=request.item_id,
        merchant_origin=merchant_origin,
        **binding,
    )
    return request


async def browser_login(stub, meta, session_id, page, item_id, **extra):
    """EnterPrivate of a saved login into the shop's sign-in form."""
    request = enter_request(
        session_id,
        item_id,
        claims_pb2.ENTRY_KIND_SAVED_LOGIN,
        {"username": field_ref(page, "username"), "password": field_ref(page, "password")},
        control_ref(page, "Sign in"),
        **extra,
    )
    return await stub.EnterPrivate(request, metadata=meta)


async def put_shop_login(vault_stub, meta, shop, username, password, totp_seed=None):
    fields = {"username": username, "password": password}
    if totp_seed:
        fields["totp_seed"] = totp_seed
    item = claims_pb2.VaultItem(
        kind=claims_pb2.ENTRY_KIND_SAVED_LOGIN, label="demo shop", origin=shop.url, fields=fields
    )
    reply = await vault_stub.PutItem(claims_pb2.PutItemRequest(item=item), metadata=meta)
    return reply.item


async def claims_of_task(claims_stub, meta, task_id: str = "task-1"):
    request = claims_pb2.ListClaimsRequest(task_id=task_id)
    return list((await claims_stub.ListClaims(request, metadata=meta)).claims)


async def poll(check, *, timeout_s: float = 10.0, what: str = "condition"):
    """Calls `check()` (awaiting it when it is a coroutine function) until it
    returns something truthy, or fails the test."""
    deadline = asyncio.get_running_loop().time() + timeout_s
    while True:
        result = check()
        if inspect.isawaitable(result):
            result = await result
        if result:
            return result
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.05)
