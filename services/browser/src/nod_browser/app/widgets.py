"""A session's other non-private actions, those real pages need: choose an
option, check a box, press a key, scroll, go back, and turn to another page
the site opened (a popup, a tab). Like a click, a key press can send a form:
one that does not finish in time may have reached the site."""

import re

from playwright.async_api import Error
from playwright.async_api import TimeoutError as PlaywrightTimeout

from nod_browser.adapters.locating import locate_one
from nod_browser.adapters.page_reader import settle
from nod_browser.app.sessions import Session
from nod_browser.settings import BrowserSettings
from nodkit.errors import FailedPrecondition, InvalidArgument, Unavailable

# Playwright's key names ("Enter", "ArrowDown", "Shift+Tab", "a").
KEY = re.compile(r"^[A-Za-z0-9]+(\+[A-Za-z0-9]+)*$")
MAX_SCROLL_PAGES = 20


def check_key(key: str) -> str:
    if not KEY.fullmatch(key) or len(key) > 40:
        raise InvalidArgument("key", "must be a key as Playwright names it, e.g. Enter or Tab")
    return key


async def select_option(
    session: Session, target: str, option: str, settings: BrowserSettings
) -> None:
    element = await locate_one(session.page, session.frames, "target", target)
    timeout_ms = settings.action_timeout_s * 1000
    for choice in ({"label": option}, {"value": option}):
        try:
            await element.select_option(**choice, timeout=timeout_ms)  # type: ignore[arg-type]
            await settle(session.page, settings.action_timeout_s)
            return
        except Error:
            continue
    raise FailedPrecondition("option: the target has no such option", reason="NO_SUCH_OPTION")


async def set_checked(
    session: Session, target: str, checked: bool, settings: BrowserSettings
) -> None:
    element = await locate_one(session.page, session.frames, "target", target)
    try:
        await element.set_checked(checked, timeout=settings.action_timeout_s * 1000)
    except Error:
        raise FailedPrecondition(
            "target: the element can't be checked or unchecked", reason="NOT_CHECKABLE"
        ) from None
    await settle(session.page, settings.action_timeout_s)


async def press_key(session: Session, target: str, key: str, settings: BrowserSettings) -> None:
    timeout_ms = settings.action_timeout_s * 1000
    try:
        if target:
            element = await locate_one(session.page, session.frames, "target", target)
            await element.press(key, timeout=timeout_ms)
        else:
            await session.page.keyboard.press(key)
    except PlaywrightTimeout:
        raise Unavailable(
            "the key press did not finish in time; it may have reached the site",
            reason="ACTION_TIMEOUT",
        ) from None
    await settle(session.page, settings.action_timeout_s)


async def scroll(session: Session, target: str, pages: int, settings: BrowserSettings) -> None:
    if target:
        element = await locate_one(session.page, session.frames, "target", target)
        await element.scroll_into_view_if_needed(timeout=settings.action_timeout_s * 1000)
        return
    if not -MAX_SCROLL_PAGES <= pages <= MAX_SCROLL_PAGES:
        raise InvalidArgument(
            "pages", f"must be between -{MAX_SCROLL_PAGES} and {MAX_SCROLL_PAGES}"
        )
    height = (session.page.viewport_size or {"height": 720})["height"]
    await session.page.mouse.wheel(0, pages * height)


async def go_back(session: Session, settings: BrowserSettings) -> None:
    """The browser's Back, a GET: a page that was a form's answer is not
    sent again (the request guard refuses any resend)."""
    try:
        await session.page.go_back(wait_until="load", timeout=settings.action_timeout_s * 1000)
    except PlaywrightTimeout:
        raise Unavailable("the page did not go back in time", reason="NAVIGATION_TIMEOUT") from None
