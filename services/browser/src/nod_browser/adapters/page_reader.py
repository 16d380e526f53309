"""Reading a page for a model: the script in read_page.js reads each frame's
document (the page itself and every iframe, same- or cross-origin), and
domain/frame_reads.py makes one page of them. The script never returns a
private field's value; this side masks those again, masks whatever any
frame shows back of the values the runner entered in the session, clips
every string to its length, and runs each through nodkit's redactor, so
nothing shaped like a card number gets out."""

import asyncio
import json
import pathlib
from collections.abc import Callable

from playwright.async_api import Error, Frame, Page

from nod_browser.adapters.frame_ids import FrameIds
from nod_browser.domain.frame_reads import FrameRead, merge
from nod_browser.domain.private_fields import CODE_BOX_ATTRIBUTE, rules_for_the_page
from nodkit.errors import Unavailable
from nodkit.redaction import redact_value

HERE = pathlib.Path(__file__).parent
RULES = json.dumps(rules_for_the_page())
PRIVATE_FIELD = (HERE / "private_field.js").read_text().replace("__PRIVATE_FIELD_RULES__", RULES)
SCRIPT = (
    (HERE / "read_page.js")
    .read_text()
    .replace("__PRIVATE_FIELD__", PRIVATE_FIELD)
    .replace("__PRIVATE_FIELD_RULES__", RULES)
    .replace("__CODE_BOX_ATTRIBUTE__", CODE_BOX_ATTRIBUTE)
)
ATTEMPTS = 3
COUNTS = {"maxFields": 200, "maxControls": 300, "maxNotices": 20, "maxHeadings": 30}
# Per document: how many elements are looked at, how many choices a select shows.
DOCUMENT_LIMITS = {"maxElements": 20_000, "maxOptions": 50}
# How much of each string a read shows.
CLIP = {
    "label": 200,
    "placeholder": 200,
    "value": 500,
    "control": 200,
    "notice": 500,
    "heading": 200,
    "option": 100,
}
# An iframe whose document has not loaded in this long is left out of the
# read (an ad whose server hangs); one whose document is there is read for as
# long as the read's own bound leaves (a card field's frame on a loaded
# machine took more than 2 s to answer, and was missed).
FRAME_TIMEOUT_S = 2.0
# Kept back from the read's bound for the frames: a frame that never answers
# is left out just before it, and the rest of the read stands.
FRAME_MARGIN_S = 0.5
MAX_FRAMES = 20

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
        field["options"] = [shown(option, CLIP["option"]) for option in field.get("options", [])]
    for control in raw["controls"]:
        control["text"] = shown(control["text"], CLIP["control"])
        control["href"] = shown(control["href"])
    for notice in raw["notices"]:
        notice["text"] = shown(notice["text"], CLIP["notice"])
    for form in raw["forms"]:
        form["action"] = shown(form["action"])
    raw["headings"] = [shown(heading, CLIP["heading"]) for heading in raw.get("headings", [])]
    for frame in raw.get("frames", []):
        frame.update(url=shown(frame["url"]), title=shown(frame["title"], CLIP["label"]))
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


async def read_page(
    page: Page, frame_ids: FrameIds, *, mask: Mask, reach: int, max_text: int, timeout_s: float
) -> dict:
    """Reads every frame of the page. `mask` hides the values entered in the
    session; each string is read `reach` characters longer than shown, so a
    value at its edge is masked whole."""
    limits = {"maxText": max_text, "clip": CLIP, "slack": reach, **COUNTS, **DOCUMENT_LIMITS}
    loop = asyncio.get_running_loop()
    for _ in range(ATTEMPTS):
        try:
            frames_until = loop.time() + timeout_s - FRAME_MARGIN_S
            async with asyncio.timeout(timeout_s):
                main = await page.main_frame.evaluate(SCRIPT, limits)
                if main is None:
                    raise Error("the document has no root yet")
                others = await _read_frames(page, frame_ids, limits, frames_until)
            reads = [FrameRead("f0", "", "", main), *others]
            return finish(merge(reads, COUNTS), mask, max_text)
        except Error:
            # The page navigated while it was read; reading is safe to repeat.
            await settle(page, timeout_s)
        except TimeoutError:
            break
    raise Unavailable("the page could not be read in time", reason="PAGE_NOT_READABLE")


async def _read_frames(
    page: Page, frame_ids: FrameIds, limits: dict, until: float
) -> list[FrameRead]:
    """The iframes' reads, side by side; one that is gone, failing, still
    loading or not answering by `until` (loop time) is left out (the page
    itself is what a read must have)."""
    frame_ids.forget_detached()
    frames = [f for f in page.frames[1 : MAX_FRAMES + 1] if not f.is_detached()]
    reads = await asyncio.gather(*(_read_frame(f, frame_ids, limits, until) for f in frames))
    return [read for read in reads if read is not None]


async def _read_frame(
    frame: Frame, frame_ids: FrameIds, limits: dict, until: float
) -> FrameRead | None:
    frame_id = frame_ids.id_of(frame)
    parent = frame.parent_frame
    try:
        # Known at once for a frame whose document is there (Playwright
        # follows each frame's load events); a frame still loading waits.
        await frame.wait_for_load_state("domcontentloaded", timeout=FRAME_TIMEOUT_S * 1000)
        async with asyncio.timeout_at(until):
            raw = await frame.evaluate(SCRIPT, limits)
            if raw is None:
                return None
            element = await frame.frame_element()
            title = await element.evaluate("(el) => el.title || el.name || ''")
    except (Error, TimeoutError):
        return None
    parent_id = frame_ids.id_of(parent) if parent is not None else ""
    return FrameRead(frame_id, parent_id, title, raw)


async def settle(page: Page, timeout_s: float) -> None:
    """Waits (bounded) for the page to finish loading after an action."""
    try:
        await page.wait_for_load_state("load", timeout=timeout_s * 1000)
    except Error:
        pass


async def document_loaded(page: Page, timeout_s: float) -> None:
    """Waits (bounded) for the page's document to say it has loaded
    (readyState), not Playwright's load state: a navigation the page itself
    asked for that the request guard then refused (a read-only session's
    form, posted by a script) leaves Playwright counting the frame as
    navigating until another document commits, and its load states wait
    for that load to the bound."""
    try:
        await page.wait_for_function("document.readyState === 'complete'", timeout=timeout_s * 1000)
    except Error:
        pass  # the bound, or the document went (a navigation): the read says where it is


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
