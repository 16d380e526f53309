"""navigate, read_page, click, type_text: the task's browser session (one
isolated context per task), opened on first use. A session that is gone
(Stop closed it, the browser service restarted) is replaced by a new one
rather than failing every later call: a navigation goes on in the new one,
and anything that needed the old page says so."""

from collections.abc import Awaitable, Callable
from urllib.parse import urlsplit

from nod_tasks.app.tools.base import Arguments, StepContext
from nod_tasks.domain import steps
from nod_tasks.domain.pages import Page
from nod_tasks.domain.results import PageShown
from nod_tasks.domain.steps import StepEnd
from nodkit.client import NodRpcError

LOST_SESSION = "SESSION_NOT_FOUND"
NEW_SESSION = (
    "the browser session was gone (nod restarted or the task was stopped); a new one is open"
)


async def session_of(ctx: StepContext) -> str:
    if ctx.session_id is None:
        ctx.session_id = ctx.task.session_id or await _open(ctx)
    return ctx.session_id


async def _open(ctx: StepContext) -> str:
    ctx.session_id = await ctx.peers.browser.open_session(ctx.owner, ctx.task.id)
    return ctx.session_id


async def in_session(ctx: StepContext, act: Callable[[str], Awaitable[Page]]) -> Page:
    """`act` in the task's session. Raises SessionReplaced when the session
    was gone: nothing was done, and a new one is now the task's."""
    session_id = await session_of(ctx)
    try:
        return await act(session_id)
    except NodRpcError as error:
        if error.reason != LOST_SESSION:
            raise
    await _open(ctx)
    raise SessionReplaced


class SessionReplaced(Exception):
    pass


def page_failed(error: NodRpcError, what: str) -> StepEnd:
    return steps.failed(f"{what}: {error.message}")


async def navigate(ctx: StepContext, args: Arguments) -> StepEnd:
    url = str(args["url"]).strip()
    if urlsplit(url).scheme not in ("http", "https"):
        return steps.not_run("url must be an http or https address")
    owner, browser = ctx.owner, ctx.peers.browser
    try:
        try:
            page = await in_session(ctx, lambda s: browser.navigate(owner, s, url))
        except SessionReplaced:
            # A page load is a GET, and the lost one loaded nothing.
            page = await browser.navigate(owner, await session_of(ctx), url)
    except NodRpcError as error:
        return page_failed(error, "the page did not load")
    return steps.done(PageShown(page))


async def read_page(ctx: StepContext, args: Arguments) -> StepEnd:
    owner, browser = ctx.owner, ctx.peers.browser
    try:
        page = await in_session(ctx, lambda s: browser.read_page(owner, s))
    except SessionReplaced:
        return steps.failed(f"{NEW_SESSION}: navigate to the page again")
    except NodRpcError as error:
        return page_failed(error, "the page could not be read")
    return steps.done(PageShown(page))


async def click(ctx: StepContext, args: Arguments) -> StepEnd:
    owner, browser, target = ctx.owner, ctx.peers.browser, str(args["target"])
    try:
        page = await in_session(ctx, lambda s: browser.click(owner, s, target))
    except SessionReplaced:
        return steps.failed(f"{NEW_SESSION}: nothing was clicked; navigate to the page again")
    except NodRpcError as error:
        if error.may_have_happened:
            # A click can send a form: it may have reached the site.
            return steps.uncertain(f"the click did not finish ({error.message})")
        return page_failed(error, "nothing was clicked")
    return steps.done(PageShown(page))


async def type_text(ctx: StepContext, args: Arguments) -> StepEnd:
    owner, browser = ctx.owner, ctx.peers.browser
    target, text = str(args["target"]), str(args["text"])
    try:
        page = await in_session(ctx, lambda s: browser.type_text(owner, s, target, text))
    except SessionReplaced:
        return steps.failed(f"{NEW_SESSION}: nothing was typed; navigate to the page again")
    except NodRpcError as error:
        # Typing stays in the page until something sends it.
        return page_failed(error, "nothing was typed")
    return steps.done(PageShown(page))
