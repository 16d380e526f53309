"""Reading a page for a model. The script in read_page.js never returns a
private field's value; this side masks those again, masks whatever the page
shows back of the values the runner entered in the session, clips every
string to its length, and runs each through nodkit's redactor, so nothing
shaped like a card number gets out."""

import asyncio
import json
import pathlib
from collections.abc import Callable

from playwright.async_api import Error, Page

from nod_browser.domain.private_fields import rules_for_the_page
from nodkit.errors import Unavailable
from nodkit.redaction import redact_value

HERE = pathlib.Path(__file__).parent
PRIVATE_FIELD = (
    (HERE / "private_field.js")
    .read_text()
    .replace("__PRIVATE_FIELD_RULES__", json.dumps(rules_for_the_page()))
)
SCRIPT = (HERE / "read_page.js").read_text().replace("__PRIVATE_FIELD__", PRIVATE_FIELD)
ATTEMPTS = 3
COUNTS = {"maxFields": 200, "maxControls": 300, "maxNotices": 20}
# How much of each string a read shows.
CLIP = {"label": 200, "placeholder": 200, "value": 500, "control": 200, "notice": 500}

Mask = Callable[[str], str]


def finish(raw: dict, mask: Mask, max_text: int) -> dict:
    def shown(text: str, limit: int | None = None) -> str:
        # Masked and redacted whole, then clipped: no value is cut in two.
        return redact_value(mask(text))[:limit]

    text = shown(raw["text"])
    for field in raw["fields"]:
        field["value"] = "" if field["masked"] else shown(field["value"], CLIP["value"])
        field["label"] = shown(field["label"], CLIP["label"])
        field["placeholder"] = shown(field["placeholder"], CLIP["placeholder"])
    for control in raw["controls"]:
        control["text"] = shown(control["text"], CLIP["control"])
        control["href"] = shown(control["href"])
    for notice in raw["notices"]:
        notice["text"] = shown(notice["text"], CLIP["notice"])
    for form in raw["forms"]:
        form["action"] = shown(form["action"])
    raw.update(
        url=shown(raw["url"]),
        title=shown(raw["title"]),
        text=text[:max_text],
        textTruncated=raw["textTruncated"] or len(text) > max_text,
    )
    return _mask_card_numbers(raw)


def _mask_card_numbers(value):
    # Every other string too (names, refs). Strings only: the redactor's key rules would
    # blank whole lists named "fields".
    if isinstance(value, str):
        return redact_value(value)
    if isinstance(value, dict):
        return {key: _mask_card_numbers(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_mask_card_numbers(item) for item in value]
    return value


async def read_page(page: Page, *, mask: Mask, reach: int, max_text: int, timeout_s: float) -> dict:
    """`mask` hides the values entered in the session; each string is read
    `reach` characters longer than shown, so a value at its edge is masked whole."""
    limits = {"maxText": max_text, "clip": CLIP, "slack": reach, **COUNTS}
    for _ in range(ATTEMPTS):
        try:
            async with asyncio.timeout(timeout_s):
                raw = await page.evaluate(SCRIPT, limits)
            return finish(raw, mask, max_text)
        except Error:
            # The page navigated while it was read; reading is safe to repeat.
            await settle(page, timeout_s)
        except TimeoutError:
            break
    raise Unavailable("the page could not be read in time", reason="PAGE_NOT_READABLE")


async def settle(page: Page, timeout_s: float) -> None:
    """Waits (bounded) for the page to finish loading after an action."""
    try:
        await page.wait_for_load_state("load", timeout=timeout_s * 1000)
    except Error:
        pass


async def quiet(page: Page, load_timeout_s: float, quiet_timeout_s: float) -> None:
    """Waits (bounded) for the page to load, then for its network to go
    quiet (no request for half a second): what a page check reads must be
    the page the site settled on, not one still loading. A page that never
    goes quiet (a long poll) is read once the bound is reached."""
    await settle(page, load_timeout_s)
    try:
        await page.wait_for_load_state("networkidle", timeout=quiet_timeout_s * 1000)
    except Error:
        pass
