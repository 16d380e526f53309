"""A picture of a session's current page, for the person's own view of a
task's step: never part of anything sent to the model (the tasks service
stores it apart from the step's result, and reads of the page never carry
it).

What is painted over, in every frame (screenshot.js finds it, as the page
reader finds fields and text, open shadow roots included):
- every private field (a password field, a card or code field, anything
  EnterPrivate filled: private_field.js's rules, one definition with the
  reads'), whatever it holds;
- every text node, field value, placeholder, image alt text or ::before /
  ::after content in which the session's shown-back masker (the one that
  masks page reads, domain/shown_back.py) finds a value the session entered;
- a frame that could not be looked at, whole.

Painted twice over: Playwright's `mask` (an overlay laid in the page as the
picture is taken, at where those elements are then), and again here,
after, in the runner's own page (painter.py), where the page's own CSS or
script can't take it off. The page is watched from the first look to the
last (after the picture): if it scrolled, took a mark away, or changed at
all while it shows back an entered value, or any change showed one, the
picture is thrown away and taken again; after ATTEMPTS it is not taken.

Limits: a value drawn where no text is (a canvas, an image, a video) or
inside a closed shadow root can't be read, by page reads or here; the
paint covers whole boxes, so the size of a masked box shows how much space
the page gave what it held.
"""

import asyncio
import pathlib
import secrets
from dataclasses import dataclass, field
from typing import Any

from playwright.async_api import Error, Frame, Page

from nod_browser.adapters.page_reader import PRIVATE_FIELD, RULES
from nod_browser.adapters.painter import Painter
from nod_browser.domain.pictures import (
    Box,
    clipped,
    moved,
    paint_boxes,
    shown_in,
    shows_any,
)
from nod_browser.domain.private_fields import CODE_BOX_ATTRIBUTE
from nod_browser.domain.shown_back import EnteredValues
from nodkit.errors import Unavailable
from nodkit.logging import get_logger

log = get_logger("nod_browser.screenshots")
HERE = pathlib.Path(__file__).parent
SCRIPT = (
    (HERE / "screenshot.js")
    .read_text()
    .replace("__PRIVATE_FIELD__", PRIVATE_FIELD)
    .replace("__PRIVATE_FIELD_RULES__", RULES)
    .replace("__CODE_BOX_ATTRIBUTE__", CODE_BOX_ATTRIBUTE)
)
MEDIA_TYPE = "image/png"
# A slate grey, plainly not part of any page.
MASK_COLOR = "#4b5563"
ATTEMPTS = 3
# Frames looked into at most (as the page reader reads); any more are painted whole.
MAX_FRAMES = 20
# A picture right after an action waits this long at most for the page (its
# frames too) to load: a frame that comes later makes the picture be taken again.
LOAD_WAIT_S = 1.0
LIMITS = {"maxElements": 20_000, "maxText": 500_000}
# Where an iframe's content sits inside its element, and whether it is
# drawn at its own size (a scaled frame is painted whole).
INNER_BOX = """(e) => {
  const s = getComputedStyle(e);
  const px = (v) => parseFloat(v) || 0;
  return [e.clientLeft + px(s.paddingLeft), e.clientTop + px(s.paddingTop),
    e.clientWidth - px(s.paddingLeft) - px(s.paddingRight),
    e.clientHeight - px(s.paddingTop) - px(s.paddingBottom), e.offsetWidth, e.offsetHeight];
}"""


@dataclass(frozen=True)
class Picture:
    image: bytes
    media_type: str
    width: int
    height: int


@dataclass
class Place:
    """Where a frame's viewport sits in the page's: its offset, and the
    part of the page it shows (None: the main frame, the whole viewport)."""

    dx: float = 0.0
    dy: float = 0.0
    clip: Box | None = None


@dataclass
class Look:
    """One frame's first look (scan) and last (check)."""

    frame: Frame
    place: Place | None
    first: dict[str, Any] | None = None
    last: dict[str, Any] | None = None
    matched: set[int] = field(default_factory=set)


class Retake(Exception):
    """The page changed under the picture: it is taken again."""


async def take(
    page: Page, entered: EnteredValues, painter: Painter, *, timeout_s: float
) -> Picture:
    """The picture of the page's viewport, private values painted over."""
    for attempt in range(1, ATTEMPTS + 1):
        try:
            return await _attempt(page, entered, painter, timeout_s)
        except Retake as why:
            log.info("screenshot.retaken", attempt=attempt, why=str(why))
    raise Unavailable(
        "the page kept changing while its picture was taken", reason="PAGE_KEPT_CHANGING"
    )


async def _attempt(
    page: Page, entered: EnteredValues, painter: Painter, timeout_s: float
) -> Picture:
    nonce = secrets.token_hex(8)
    texts = entered.any
    args = {**LIMITS, "nonce": nonce, "texts": texts}
    try:
        await page.wait_for_load_state("load", timeout=min(LOAD_WAIT_S, timeout_s) * 1000)
    except Error:
        pass  # still loading: what is there is looked at, and watched
    frames = [f for f in page.frames if not f.is_detached()]
    # The main frame first (page.frames lists it first).
    looked, unlooked = frames[: MAX_FRAMES + 1], frames[MAX_FRAMES + 1 :]
    places: dict[Frame, Place | None] = {}
    for frame in frames:
        await _place(frame, places)
    looks = [Look(frame, places.get(frame)) for frame in looked if places.get(frame) is not None]
    hidden = [frame for frame in looked if places.get(frame) is None and frame.parent_frame]
    firsts = await asyncio.gather(*(_run(look.frame, "scan", args) for look in looks))
    for look, first in zip(looks, firsts, strict=True):
        look.first = first
    main = looks[0] if looks and looks[0].frame is page.main_frame else None
    if main is None or main.first is None:
        raise Retake("the page could not be looked at (it may be navigating)")
    if texts:
        _match_first(looks, entered)
        marked = await asyncio.gather(
            *(
                _run(look.frame, "mark", {**args, "indexes": sorted(look.matched)})
                for look in looks
                if look.matched
            )
        )
        if any(mark is not None and mark.get("lost") for mark in marked):
            raise Retake("a frame navigated under the picture")
    selector = f'[data-nod-cover="{nonce}"]'
    png = await page.screenshot(
        type="png",
        mask=[look.frame.locator(selector) for look in looks if look.first is not None],
        mask_color=MASK_COLOR,
        animations="disabled",
        caret="hide",
        scale="css",
        timeout=timeout_s * 1000,
    )
    lasts = await asyncio.gather(
        *(_run(look.frame, "check", args) for look in looks if look.first is not None)
    )
    for look, last in zip([x for x in looks if x.first is not None], lasts, strict=True):
        look.last = last
    if main.last is None or any(look.last and look.last.get("lost") for look in looks):
        raise Retake("a frame navigated under the picture")
    if {f for f in page.frames if not f.is_detached()} - set(frames):
        raise Retake("a frame came while the picture was taken")
    await _still_in_place(looks)
    size = page.viewport_size or {"width": main.first["width"], "height": main.first["height"]}
    width, height = int(size["width"]), int(size["height"])
    boxes = _boxes(looks, entered, texts)
    boxes += [box for frame in unlooked + hidden if (box := await _whole(frame))]
    if not boxes:
        return Picture(png, MEDIA_TYPE, width, height)
    painted = await painter.paint(png, paint_boxes(boxes, width, height), MASK_COLOR)
    return Picture(painted, MEDIA_TYPE, width, height)


async def _run(frame: Frame, op: str, args: dict[str, Any]) -> dict[str, Any] | None:
    """None: the frame could not be looked at (gone, failing, navigating)."""
    try:
        result = await frame.evaluate(SCRIPT, {**args, "op": op})
    except Error:
        return None
    return result if isinstance(result, dict) else None


async def _place(frame: Frame, places: dict[Frame, Place | None]) -> Place | None:
    """None: the frame is not shown (or can't be placed: it is painted whole)."""
    if frame in places:
        return places[frame]
    parent = frame.parent_frame
    if parent is None:
        places[frame] = Place()
        return places[frame]
    outer = await _place(parent, places)
    place: Place | None = None
    if outer is not None:
        try:
            element = await frame.frame_element()
            box = await element.bounding_box()
            inner = await element.evaluate(INNER_BOX) if box else None
        except Error:
            box = inner = None
        if box and inner:
            left, top, w, h, own_w, own_h = inner
            drawn_as_is = abs(box["width"] - own_w) <= 1 and abs(box["height"] - own_h) <= 1
            content = (box["x"] + left, box["y"] + top, w, h)
            shown = clipped(content, outer.clip) if outer.clip else content
            if drawn_as_is and shown is not None:
                place = Place(content[0], content[1], shown)
    places[frame] = place
    return place


async def _whole(frame: Frame) -> Box | None:
    """The box of a frame's element, in the page: it is painted whole (None:
    it is not shown). One that can't be found while the frame lives makes
    the picture be taken again: nothing unlooked at is left unpainted."""
    try:
        box = await (await frame.frame_element()).bounding_box()
    except Error:
        if frame.is_detached():
            return None
        raise Retake("a frame could not be found in its page") from None
    return (box["x"], box["y"], box["width"], box["height"]) if box else None


async def _still_in_place(looks: list[Look]) -> None:
    """The frames with something to paint over are where they were looked
    at (a frame moved by the page meanwhile would be painted beside it)."""
    for look in looks:
        if look.frame.parent_frame is None or not _has_paint(look):
            continue
        now = await _place(look.frame, {})
        if now != look.place:
            raise Retake("a frame moved while the picture was taken")


def _has_paint(look: Look) -> bool:
    first, last = look.first or {}, look.last or {}
    return bool(look.matched or first.get("covers") or last.get("covers"))


def _match_first(looks: list[Look], entered: EnteredValues) -> None:
    """Which segments of the first look show an entered value (all frames'
    text read together, as a page read's is)."""
    owners = []
    texts = []
    for look in looks:
        for index, (text, _) in enumerate((look.first or {}).get("segments", [])):
            owners.append((look, index))
            texts.append(text)
    for at in shown_in(entered.spans, texts):
        look, index = owners[at]
        look.matched.add(index)


def _boxes(looks: list[Look], entered: EnteredValues, texts: bool) -> list[Box]:
    """Everything to paint over, in the page's coordinates; raises Retake
    when the page changed in a way the picture may show."""
    boxes: list[Box] = []
    last_texts: list[str] = []
    last_boxes: list[list[Box]] = []
    shown_before = any(look.matched for look in looks)
    for look in looks:
        assert look.place is not None
        first, last = look.first, look.last
        if first is None or last is None:
            boxes += _frame_box(look.place)
            continue
        if last.get("tampered") or last.get("scrolled") or last.get("changedTooMuch"):
            raise Retake("the page scrolled, or took a mark away")
        if texts and (last.get("changes") and shows_any(entered.spans, last["changes"])):
            raise Retake("a change showed an entered value")
        if shown_before and last.get("mutated"):
            raise Retake("the page changed while it shows back an entered value")
        if not (first.get("complete") and last.get("complete")):
            boxes += _frame_box(look.place)  # too large to look through: all of it
            continue
        kept = [list(map(tuple, first["covers"])), list(map(tuple, last["covers"]))]
        for index in look.matched:
            kept.append([tuple(b) for b in first["segments"][index][1]])
        for own in kept:
            boxes += _in_page(look.place, own)
        for text, own in last.get("segments", []):
            last_texts.append(text)
            last_boxes.append(_in_page(look.place, [tuple(b) for b in own]))
    if texts:
        for at in shown_in(entered.spans, last_texts):
            boxes += last_boxes[at]
    return boxes


def _in_page(place: Place, own: list) -> list[Box]:
    shown = []
    for box in own:
        in_page: Box | None = moved(box, place.dx, place.dy)
        if place.clip is not None and in_page is not None:
            in_page = clipped(in_page, place.clip)
        if in_page is not None:
            shown.append(in_page)
    return shown


def _frame_box(place: Place) -> list[Box]:
    if place.clip is None:
        return [(0.0, 0.0, 1e6, 1e6)]  # the main frame: all of it
    return [place.clip]
