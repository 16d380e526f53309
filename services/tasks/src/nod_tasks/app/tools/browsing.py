"""navigate, read_page, click, type_text: the task's browser session, opened
on first use and kept on the task (one isolated context per task)."""

from typing import Any
from urllib.parse import urlsplit

from google.protobuf import json_format

from nod.browser.v1 import browser_pb2 as pb
from nod_tasks.app.tools.base import Arguments, StepContext
from nod_tasks.domain import steps
from nod_tasks.domain.pages import for_model
from nod_tasks.domain.steps import StepEnd, StepState
from nodkit.client import NodRpcError

LOST_SESSION = "SESSION_NOT_FOUND"


def page_dict(page: pb.Page) -> dict[str, Any]:
    return json_format.MessageToDict(page)


def done_with_page(page: pb.Page, **result: Any) -> StepEnd:
    return StepEnd(
        StepState.DONE, {"outcome": "done", **result, "page": for_model(page_dict(page))}
    )


async def session_of(ctx: StepContext) -> str:
    if ctx.session_id or ctx.task.session_id:
        return ctx.session_id or ctx.task.session_id  # type: ignore[return-value]
    reply = await ctx.peers.browser.call(
        ctx.peers.browser_stub.OpenSession, pb.OpenSessionRequest(task_id=ctx.task.id), ctx.owner
    )
    ctx.session_id = reply.session_id
    return reply.session_id


def read_failed(error: NodRpcError, what: str) -> StepEnd:
    if error.reason == LOST_SESSION:
        return steps.failed(f"the browser session was lost; navigate again ({what})")
    return steps.failed(f"{what}: {error.message}")


async def navigate(ctx: StepContext, args: Arguments) -> StepEnd:
    url = str(args["url"]).strip()
    if urlsplit(url).scheme not in ("http", "https"):
        return steps.not_run("url must be an http or https address")
    try:
        session_id = await session_of(ctx)
        request = pb.NavigateRequest(session_id=session_id, url=url)
        reply = await ctx.peers.browser.call(ctx.peers.browser_stub.Navigate, request, ctx.owner)
    except NodRpcError as error:
        # A page load is a GET: it submits nothing (forms go through click).
        return read_failed(error, "the page did not load")
    return done_with_page(reply.page)


async def read_page(ctx: StepContext, args: Arguments) -> StepEnd:
    try:
        session_id = await session_of(ctx)
        reply = await ctx.peers.browser.call(
            ctx.peers.browser_stub.ReadPage, pb.ReadPageRequest(session_id=session_id), ctx.owner
        )
    except NodRpcError as error:
        return read_failed(error, "the page could not be read")
    return done_with_page(reply.page)


async def click(ctx: StepContext, args: Arguments) -> StepEnd:
    try:
        session_id = await session_of(ctx)
        request = pb.ClickRequest(session_id=session_id, target=args["target"])
        reply = await ctx.peers.browser.call(ctx.peers.browser_stub.Click, request, ctx.owner)
    except NodRpcError as error:
        if error.may_have_happened:
            # A click can send a form: it may have reached the site.
            return steps.uncertain(f"the click did not finish ({error.message})")
        return read_failed(error, "nothing was clicked")
    return done_with_page(reply.page)


async def type_text(ctx: StepContext, args: Arguments) -> StepEnd:
    try:
        session_id = await session_of(ctx)
        request = pb.TypeTextRequest(
            session_id=session_id, target=args["target"], text=args["text"]
        )
        reply = await ctx.peers.browser.call(ctx.peers.browser_stub.TypeText, request, ctx.owner)
    except NodRpcError as error:
        # Typing stays in the page until something sends it.
        return read_failed(error, "nothing was typed")
    return done_with_page(reply.page)
