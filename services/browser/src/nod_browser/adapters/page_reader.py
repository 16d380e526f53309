"""Reading a page for a model. The script in read_page.js never returns a
private field's value; this side masks those again and runs every string
through nodkit's redactor, so nothing shaped like a card number gets out."""

import asyncio
import json
import pathlib

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


def scrub(raw: dict) -> dict:
    for field in raw["fields"]:
        if field["masked"]:
            field["value"] = ""
    return _mask_card_numbers(raw)


def _mask_card_numbers(value):
    # Strings only: the redactor's key rules would blank whole lists named "fields".
    if isinstance(value, str):
        return redact_value(value)
    if isinstance(value, dict):
        return {key: _mask_card_numbers(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_mask_card_numbers(item) for item in value]
    return value


async def read_page(page: Page, *, max_text: int, timeout_s: float) -> dict:
    limits = {"maxText": max_text, "maxFields": 200, "maxControls": 300, "maxNotices": 20}
    for _ in range(ATTEMPTS):
        try:
            async with asyncio.timeout(timeout_s):
                return scrub(await page.evaluate(SCRIPT, limits))
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
