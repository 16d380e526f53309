"""A session's non-private actions: open it, go to an address, click, type,
read the page, and take its picture (the person's, never the model's)."""

import asyncio
import contextlib
import time
from typing import Literal

from playwright.async_api import Error
from playwright.async_api import TimeoutError as PlaywrightTimeout

from nod_browser.adapters.chromium import Chromium
from nod_browser.adapters.egress_proxy import REFUSED_HEADER, REFUSED_MARK, EgressProxy
from nod_browser.adapters.locating import locate_one
from nod_browser.adapters.page_reader import (
    PRIVATE_FIELD,
    document_loaded,
    quiet,
    read_page,
    settle,
)
from nod_browser.adapters.painter import Painter
from nod_browser.adapters.read_only import ReadOnly
from nod_browser.adapters.request_guard import send_unsafe_requests_once
from nod_browser.adapters.screenshots import Picture, take
from nod_browser.adapters.value_guard import ValueGuard
from nod_browser.app.sessions import Session, SessionCopy, Sessions
from nod_browser.settings import BrowserSettings
from nodkit.errors import FailedPrecondition, InvalidArgument, Unavailable
from nodkit.logging import get_logger
from nodkit.redaction import redact_value

log = get_logger("nod_browser.browsing")


async def open_session(
    chromium: Chromium,
    egress: EgressProxy,
    sessions: Sessions,
    settings: BrowserSettings,
    owner: str,
    task_id: str,
    *,
    read_only: bool = False,
    copied: SessionCopy | None = None,
) -> Session:
    """read_only: a look's session, read-only from its birth. copied: what
    it starts with from the session it looks from (its cookies and storage,
    and the entered values its masks and value guard know); none: a session
    with no cookies, that knows no value."""
    sessions.check_room()
    session_id = sessions.new_id()
    # Every request of the context, the request guard's own included, goes
    # through the address guard under the session's name.
    try:
        context = await chromium.new_context(
            egress.proxy_for(session_id), copied.storage if copied else None
        )
    except BaseException:
        egress.forget(session_id)
        raise
    context.set_default_timeout(settings.action_timeout_s * 1000)
    values = copied.value_guard if copied else ValueGuard()
    # In the guard from the start, so that no request of the context passes
    # unchecked: a look's is on before it has a page or sends anything.
    guard = ReadOnly()
    if read_only:
        guard.turn_on()
    try:
        answers = await send_unsafe_requests_once(
            context, settings.request_timeout_s, values, guard
        )
        page = await context.new_page()
    except BaseException:
        # No session would ever close the context (nor a look's copied cookies).
        egress.forget(session_id)
        with contextlib.suppress(Error):
            await asyncio.shield(context.close())
        raise
    entered = copied.entered if copied else None
    return sessions.add(session_id, owner, task_id, context, page, answers, values, guard, entered)


async def navigate(session: Session, url: str, settings: BrowserSettings) -> None:
    timeout_ms = settings.action_timeout_s * 1000
    # A read-only session's page may post a form from a script before it
    # has loaded; refused, that navigation leaves Playwright waiting for a
    # load that never comes (page_reader.document_loaded): the page is
    # taken once it commits, and then waited for on its own word.
    read_only = session.read_only.on
    wait_until: Literal["commit", "load"] = "commit" if read_only else "load"
    try:
        try:
            answer = await session.page.goto(url, wait_until=wait_until, timeout=timeout_ms)
        except Error as error:
            # A page whose last request was cut off (a site that dropped the
            # connection) swaps in Chromium's error page a moment later; a
            # goto racing it is interrupted. Let it land, then go (a GET).
            if "interrupted by another navigation" not in str(error):
                raise
            await settle(session.page, settings.action_timeout_s)
            answer = await session.page.goto(url, wait_until=wait_until, timeout=timeout_ms)
    except PlaywrightTimeout:
        raise Unavailable(
            "the page did not finish loading in time", reason="NAVIGATION_TIMEOUT"
        ) from None
    except Error as error:
        first_line = str(error).splitlines()[0] if str(error) else type(error).__name__
        # Playwright's message names the address, which may carry a value shown back.
        shown = redact_value(session.entered.mask(first_line))
        raise FailedPrecondition(
            f"the page could not be loaded ({shown})", reason="NAVIGATION_FAILED"
        ) from None
    if answer is not None and answer.headers.get(REFUSED_HEADER.lower()) == REFUSED_MARK:
        # The address guard answered for an address inside the network (or
        # a redirect to one): nothing there was reached. The tab is left on
        # a blank page, not on the refused address, so no later read or
        # action runs as if the session were there.
        await session.page.goto("about:blank", timeout=timeout_ms)
        raise FailedPrecondition(
            "that address is inside a private network; nod's browser does not go there",
            reason="ADDRESS_NOT_ALLOWED",
        )
    if read_only:
        await document_loaded(session.page, settings.action_timeout_s)


async def click(session: Session, target: str, settings: BrowserSettings) -> None:
    element = await locate_one(session.page, session.frames, "target", target)
    try:
        await element.click(timeout=settings.action_timeout_s * 1000)
    except PlaywrightTimeout:
        # The click may have been made (e.g. a form sent and its answer held).
        raise Unavailable(
            "the click did not finish in time; it may have reached the site",
            reason="ACTION_TIMEOUT",
        ) from None
    await settle(session.page, settings.action_timeout_s)


async def type_text(session: Session, target: str, text: str, settings: BrowserSettings) -> None:
    element = await locate_one(session.page, session.frames, "target", target)
    if await element.evaluate(PRIVATE_FIELD):
        raise InvalidArgument(
            "target", "is a private field; private values go in with EnterPrivate"
        )
    try:
        await element.fill(text, timeout=settings.action_timeout_s * 1000)
    except Error:
        raise FailedPrecondition(
            "target: the element does not take text", reason="NOT_EDITABLE"
        ) from None


async def read(session: Session, settings: BrowserSettings, *, settle: bool = False) -> dict:
    """settle: first wait (bounded) for the page to load and its network to
    go quiet: the read after a submission, whose next page may still be
    loading (a read then sees only its title, and judges nothing)."""
    session.leave_closed_page()
    if settle and session.read_only.on:
        # The same bounds, on the document's word (see navigate).
        await document_loaded(session.page, settings.action_timeout_s)
        await session.network.quiet(settings.settle_s)
        await document_loaded(session.page, settings.action_timeout_s)
        session.leave_closed_page()
    elif settle:
        await quiet(session.page, settings.action_timeout_s, settings.settle_s)
        # A submission sent by a script, or answered in a frame, may still
        # be on its way: the site's answer, not the step before it, is read.
        await session.network.quiet(settings.settle_s)
        await quiet(session.page, settings.action_timeout_s, settings.settle_s)
        session.leave_closed_page()
    page = await read_page(
        session.page,
        session.frames,
        mask=session.entered.mask,
        reach=session.entered.reach,
        max_text=settings.max_page_text,
        timeout_s=settings.action_timeout_s,
    )
    page["pages"] = await open_pages(session)
    return page


async def open_pages(session: Session) -> list[dict]:
    """The session's open pages (the site's popups and tabs), masked like any read."""
    shown = []
    for page_id, page in list(session.pages.items()):
        if page.is_closed():
            continue
        opener = await page.opener()
        opened_by = session.page_id(opener)
        shown.append(
            {
                "pageId": page_id,
                "url": redact_value(session.entered.mask(page.url)),
                "title": redact_value(session.entered.mask(await page.title())),
                "current": page is session.page,
                "openerPageId": opened_by,
            }
        )
    return shown


async def picture(session: Session, painter: Painter, settings: BrowserSettings) -> Picture:
    """The current page's viewport as a picture, every private field and
    every entered value it shows back painted over (adapters/screenshots.py).
    For the person's view of a step: nothing sent to the model carries it."""
    session.leave_closed_page()
    began = time.monotonic()
    try:
        async with asyncio.timeout(settings.action_timeout_s):
            taken = await take(
                session.page, session.entered, painter, timeout_s=settings.action_timeout_s
            )
    except TimeoutError:
        raise Unavailable("the page's picture took too long", reason="SCREENSHOT_TIMEOUT") from None
    except Error:
        raise Unavailable(
            "the page's picture could not be taken", reason="SCREENSHOT_FAILED"
        ) from None
    log.info(
        "screenshot.taken",
        session_id=session.id,
        bytes=len(taken.image),
        ms=round((time.monotonic() - began) * 1000),
    )
    return taken
