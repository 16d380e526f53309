"""Typing a granted entry into the page and pressing submit, once.

The values are looked up (and a TOTP computed from its seed) before the first
keystroke, so a value the item lacks stops the entry with nothing typed.
They live only in this call's locals and the grant, which the caller clears,
and, as the pattern that masks them in page reads, in the session's memory.
"""

import asyncio
from dataclasses import dataclass

from playwright.async_api import Error, Locator
from playwright.async_api import TimeoutError as PlaywrightTimeout

from nod_browser.domain.entry import SHOWN_BACK_FREELY, MissingValue, value_for
from nod_browser.domain.private_fields import ENTERED_ATTRIBUTE
from nod_browser.domain.shown_back import EnteredValues

MARK_PRIVATE = f"el => el.setAttribute('{ENTERED_ATTRIBUTE}', '1')"


@dataclass(frozen=True)
class Placement:
    name: str  # the value's field, e.g. "password"
    element: Locator


async def fill_and_press(
    grant,
    places: list[Placement],
    submit: Locator | None,
    *,
    entered: EnteredValues,
    action_timeout_s: float,
    deadline: float,
    progress: dict[str, str],
) -> None:
    timeout_ms = action_timeout_s * 1000
    values = [value_for(place.name, grant.secret_fields) for place in places]
    for place, value in zip(places, values, strict=True):
        if place.name not in SHOWN_BACK_FREELY:
            entered.remember(value)  # before the first keystroke
    try:
        for place, value in zip(places, values, strict=True):
            progress["stage"] = f"filling {place.name}"
            # Marked first, so a page read never shows it even if not masked by type.
            await place.element.evaluate(MARK_PRIVATE)
            await place.element.fill(value, timeout=timeout_ms)
    finally:
        values.clear()
    if submit is not None:
        progress["stage"] = "pressing submit"
        # The click waits for the navigation it starts; a site that holds or
        # drops the answer makes it fail or time out: UNCERTAIN, never a second press.
        remaining_s = max(deadline - asyncio.get_running_loop().time(), 0.001)
        await submit.click(timeout=remaining_s * 1000)


def interrupted_reason(stage: str, error: BaseException) -> str:
    """Why an entry ended UNCERTAIN. Built from the error's kind only: an
    error's text could quote the page or a value."""
    if isinstance(error, asyncio.CancelledError):
        return f"interrupted while {stage}: stopped, or the caller went away"
    if isinstance(error, TimeoutError | PlaywrightTimeout):
        return f"timed out while {stage}"
    if isinstance(error, MissingValue):
        return f"the granted entry has no {error.name}; nothing was typed"
    if isinstance(error, Error):
        return f"the page failed while {stage} ({type(error).__name__})"
    return f"unexpected error while {stage} ({type(error).__name__})"
