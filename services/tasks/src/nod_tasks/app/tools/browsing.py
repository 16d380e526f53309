"""The page tools (navigate, read_page, click, type_text, select_option,
set_checked, press_key, scroll, go_back, wait_for_page, switch_page), in
the task's browser session (one isolated context per task), opened on first
use. A session that is gone (Stop closed it, the browser service restarted)
is replaced by a new one rather than failing every later call: a navigation
goes on in the new one, and anything that needed the old page says so."""

from collections.abc import Awaitable, Callable
from urllib.parse import urlsplit

from nod_tasks.adapters.browser import SESSION_NOT_FOUND
from nod_tasks.app.tools.base import Arguments, StepContext
from nod_tasks.domain import orders, steps
from nod_tasks.domain.pages import Page
from nod_tasks.domain.reasons import Reason
from nod_tasks.domain.results import PageShown
from nod_tasks.domain.steps import StepEnd
from nodkit.client import NodRpcError

# The browser's reason for a session it doesn't have (or whose replica is gone).
LOST_SESSION = SESSION_NOT_FOUND
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
    return steps.failed(f"{what}: {error.message}", code=error.reason or Reason.STEP_FAILED)


async def navigate(ctx: StepContext, args: Arguments) -> StepEnd:
    url = str(args["url"]).strip()
    if urlsplit(url).scheme not in ("http", "https"):
        return steps.not_run("url must be an http or https address", code=Reason.BAD_ARGUMENTS)
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
    return await _act(
        ctx, lambda s: browser.read_page(owner, s), failed="the page could not be read"
    )


async def click(ctx: StepContext, args: Arguments) -> StepEnd:
    # A click can send a form: one that did not finish may have reached the site.
    owner, browser, target = ctx.owner, ctx.peers.browser, str(args["target"])
    if (refusal := orders.click_refusal(target, ctx.earlier)) is not None:
        return steps.not_run(refusal)
    return await _act(
        ctx,
        lambda s: browser.click(owner, s, target),
        failed="nothing was clicked",
        may_reach_site=True,
    )


async def type_text(ctx: StepContext, args: Arguments) -> StepEnd:
    # Typing stays in the page until something sends it.
    owner, browser = ctx.owner, ctx.peers.browser
    target, text = str(args["target"]), str(args["text"])
    return await _act(
        ctx, lambda s: browser.type_text(owner, s, target, text), failed="nothing was typed"
    )


async def _act(
    ctx: StepContext,
    act: Callable[[str], Awaitable[Page]],
    *,
    failed: str,
    may_reach_site: bool = False,
) -> StepEnd:
    """One action on the task's page, ended as what it could have done."""
    try:
        page = await in_session(ctx, act)
    except SessionReplaced:
        return steps.failed(
            f"{NEW_SESSION}: {failed}; navigate to the page again", code=Reason.PAGE_GONE
        )
    except NodRpcError as error:
        if may_reach_site and error.may_have_happened:
            return steps.uncertain(f"it did not finish ({error.message})")
        return page_failed(error, failed)
    return steps.done(PageShown(page))


async def select_option(ctx: StepContext, args: Arguments) -> StepEnd:
    owner, browser = ctx.owner, ctx.peers.browser
    target, option = str(args["target"]), str(args["option"])
    return await _act(
        ctx, lambda s: browser.select_option(owner, s, target, option), failed="nothing was chosen"
    )


async def set_checked(ctx: StepContext, args: Arguments) -> StepEnd:
    owner, browser = ctx.owner, ctx.peers.browser
    target, checked = str(args["target"]), bool(args["checked"])
    return await _act(
        ctx, lambda s: browser.set_checked(owner, s, target, checked), failed="nothing changed"
    )


async def press_key(ctx: StepContext, args: Arguments) -> StepEnd:
    owner, browser = ctx.owner, ctx.peers.browser
    target, key = str(args.get("target", "")), str(args["key"])
    if (refusal := orders.key_refusal(key, ctx.earlier)) is not None:
        return steps.not_run(refusal)
    return await _act(
        ctx,
        lambda s: browser.press_key(owner, s, target, key),
        failed="no key was pressed",
        may_reach_site=True,
    )


async def scroll(ctx: StepContext, args: Arguments) -> StepEnd:
    owner, browser = ctx.owner, ctx.peers.browser
    target, pages = str(args.get("target", "")), int(args.get("pages", 1))
    return await _act(
        ctx, lambda s: browser.scroll(owner, s, target, pages), failed="nothing was scrolled"
    )


async def go_back(ctx: StepContext, args: Arguments) -> StepEnd:
    owner, browser = ctx.owner, ctx.peers.browser
    return await _act(ctx, lambda s: browser.go_back(owner, s), failed="the page did not go back")


async def wait_for_page(ctx: StepContext, args: Arguments) -> StepEnd:
    owner, browser = ctx.owner, ctx.peers.browser
    return await _act(
        ctx,
        lambda s: browser.read_page(owner, s, settle=True),
        failed="the page could not be read",
    )


async def switch_page(ctx: StepContext, args: Arguments) -> StepEnd:
    owner, browser, page_id = ctx.owner, ctx.peers.browser, str(args["page_id"])
    return await _act(
        ctx, lambda s: browser.switch_page(owner, s, page_id), failed="no other page was shown"
    )
