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

# Playwright's key names ("Enter", "ArrowDown", "Shift+Tab", "a"): a letter
# or digit, or a name from its US keyboard layout. Checked here, whole, before
# anything is pressed: Playwright finds an unknown key only when it comes to
# it, with the keys before it in a combination already held down.
KEY = re.compile(r"^[A-Za-z0-9]+(\+[A-Za-z0-9]+)*$")
NAMED_KEYS = frozenset(
    """Escape F1 F2 F3 F4 F5 F6 F7 F8 F9 F10 F11 F12 Backquote Digit0 Digit1 Digit2 Digit3
    Digit4 Digit5 Digit6 Digit7 Digit8 Digit9 Minus Equal Backslash Backspace Tab KeyA KeyB
    KeyC KeyD KeyE KeyF KeyG KeyH KeyI KeyJ KeyK KeyL KeyM KeyN KeyO KeyP KeyQ KeyR KeyS KeyT
    KeyU KeyV KeyW KeyX KeyY KeyZ BracketLeft BracketRight CapsLock Semicolon Quote Enter
    Comma Period Slash Space ShiftLeft ShiftRight ControlLeft ControlRight AltLeft AltRight
    AltGraph MetaLeft MetaRight ContextMenu PrintScreen ScrollLock Pause PageUp PageDown
    Insert Delete Home End ArrowLeft ArrowUp ArrowRight ArrowDown NumLock NumpadDivide
    NumpadMultiply NumpadSubtract NumpadAdd NumpadDecimal NumpadEnter Numpad0 Numpad1 Numpad2
    Numpad3 Numpad4 Numpad5 Numpad6 Numpad7 Numpad8 Numpad9 Shift Control Alt Meta
    ControlOrMeta""".split()
)
MAX_SCROLL_PAGES = 20


def check_key(key: str) -> str:
    known = KEY.fullmatch(key) and all(
        len(name) == 1 or name in NAMED_KEYS for name in key.split("+")
    )
    if not known or len(key) > 40:
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
