"""Finding targets on the page: each names exactly one element, or the call
is refused naming the field (nothing is claimed or typed on a guess).

Refs are the page reader's own marks, set on the elements of each frame's
document, also inside open shadow roots. A ref names its frame ("f2.e7"):
its frame's refs are counted all at once in one evaluate there, which
looks through every open shadow root as the reader did. A CSS selector is
counted in the page itself by Playwright's engine, which also looks into
shadow roots, as clicks and fills find elements; those counts run side by side.

A private entry's fields are marked private in that same evaluate: a ref
that names exactly one element gets its field's mark there and then, so the
entry needs no second look at the page before its first keystroke. A ref
naming a one-time code split over boxes marks every box.
"""

import asyncio
import json
from collections import defaultdict
from dataclasses import dataclass

from playwright.async_api import Error, Frame, Locator, Page

from nod_browser.adapters.frame_ids import FrameIds
from nod_browser.domain.private_fields import CODE_BOX_ATTRIBUTE, ENTERED_ATTRIBUTE
from nod_browser.domain.targets import element_selector, parse_ref, selector_for
from nodkit.errors import FailedPrecondition, InvalidArgument

ATTRIBUTE = json.dumps(ENTERED_ATTRIBUTE)
BOX_ATTRIBUTE = json.dumps(CODE_BOX_ATTRIBUTE)
# An element's private marks are a list of words, one per entry, so entries
# of one operation racing each other each keep their own.
ADD_MARK = f"""(el, mark) => {{
  const had = el.getAttribute({ATTRIBUTE});
  el.setAttribute({ATTRIBUTE}, had ? had + " " + mark : mark);
}}"""
# [selector, ...], [mark or null, ...] -> [count, boxes] per selector; an
# element named exactly once gets its mark (all its boxes, for a code
# split over boxes: `boxes` says how many).
COUNT = f"""([selectors, marks]) => {{
  const roots = [document];
  for (let i = 0; i < roots.length; i++) {{
    for (const el of roots[i].querySelectorAll("*")) if (el.shadowRoot) roots.push(el.shadowRoot);
  }}
  return selectors.map((selector, i) => {{
    const found = roots.flatMap((root) => Array.from(root.querySelectorAll(selector)));
    if (found.length !== 1) return [found.length, 0];
    const first = found[0];
    const group = first.getAttribute({BOX_ATTRIBUTE});
    const inGroup = `[${{{BOX_ATTRIBUTE}}}="${{group}}"]`;
    const boxes = group && group === first.getAttribute("data-nod-ref")
      ? Array.from(first.getRootNode().querySelectorAll(inGroup)) : [];
    if (marks[i]) for (const el of boxes.length ? boxes : found) ({ADD_MARK})(el, marks[i]);
    return [1, boxes.length];
  }});
}}"""


# Where pressing the element sends its form: its own formaction, else its
# form's action, both as the browser resolved them; null when it sends no
# form. The form's action is read through the prototype's getter: a field
# named "action" would otherwise stand in for it.
SUBMISSION = """(el) => {
  const form = el.form !== undefined ? el.form : el.closest("form");
  if (!form) return null;
  if (el.getAttribute("formaction")) return el.formAction;
  return Object.getOwnPropertyDescriptor(HTMLFormElement.prototype, "action").get.call(form);
}"""


@dataclass(frozen=True)
class Found:
    element: Locator
    frame: Frame
    # A one-time code split over boxes: how many boxes (0: one element).
    boxes: int = 0


async def locate_all(
    page: Page,
    frame_ids: FrameIds,
    targets: dict[str, str],
    marks: dict[str, str] | None = None,
) -> dict[str, Found]:
    """`targets`: field -> target, checked in that order. `marks`: field ->
    the private mark its element takes if the target is a ref (a CSS target
    is marked by the entry itself, after the claim: filling.mark_private)."""
    marks = marks or {}
    by_frame: dict[str, list[str]] = defaultdict(list)
    selectors = []
    for field, target in targets.items():
        ref = parse_ref(target)
        if ref is None:
            selectors.append(field)
        else:
            by_frame[ref.frame_id].append(field)
    frames = {frame_id: frame_ids.frame_of(page, frame_id) for frame_id in by_frame}
    counting = (
        _count_refs(frames[frame_id], [targets[n] for n in names], [marks.get(n) for n in names])
        for frame_id, names in by_frame.items()
    )
    ref_counts, css_counts = await asyncio.gather(
        asyncio.gather(*counting),
        asyncio.gather(*(_count_css(page, targets[field]) for field in selectors)),
    )
    counts: dict[str, tuple[int | None, int]] = {}
    for fields, frame_counts in zip(by_frame.values(), ref_counts, strict=True):
        counts.update(zip(fields, frame_counts, strict=True))
    counts.update((field, (count, 0)) for field, count in zip(selectors, css_counts, strict=True))
    for field, target in targets.items():
        _check_count(field, target, counts[field][0])
    found = {}
    for field, target in targets.items():
        ref = parse_ref(target)
        frame = page.main_frame if ref is None else frames[ref.frame_id]
        assert frame is not None  # a frame that is gone counted nothing
        found[field] = Found(frame.locator(selector_for(target)), frame, counts[field][1])
    return found


# [selector] -> [whether it names one element in the document or its open
# shadow roots, and SUBMISSION's answer for it].
ONE_SUBMISSION = f"""(selector) => {{
  const roots = [document];
  for (let i = 0; i < roots.length; i++) {{
    for (const el of roots[i].querySelectorAll("*")) if (el.shadowRoot) roots.push(el.shadowRoot);
  }}
  let found;
  try {{
    found = roots.flatMap((root) => Array.from(root.querySelectorAll(selector)));
  }} catch (error) {{
    return [false, null];
  }}
  return found.length === 1 ? [true, ({SUBMISSION})(found[0])] : [false, null];
}}"""


async def submission_target(frame: Frame, selector: str, element: Locator) -> str | None:
    """The address pressing the element submits to (None: it submits no
    form), read in one plain evaluate in its frame: a locator's evaluate
    would first load Playwright's engine into the page's own world, some
    30 ms on a page just loaded. A selector only that engine takes (the
    plain look finds no one element) is read through `element`."""
    try:
        found, address = await frame.evaluate(ONE_SUBMISSION, selector)
        if found:
            return address
        return await element.evaluate(SUBMISSION)
    except Error:
        # The document went away under the read (the page navigated).
        raise FailedPrecondition(
            "the page is still loading; read it again", reason="PAGE_BUSY"
        ) from None


async def locate_one(page: Page, frame_ids: FrameIds, field: str, target: str) -> Locator:
    return (await locate_all(page, frame_ids, {field: target}))[field].element


async def _count_refs(
    frame: Frame | None, refs: list[str], marks: list[str | None]
) -> list[tuple[int, int]]:
    if frame is None:
        return [(0, 0)] * len(refs)  # its frame is gone (or was never read)
    selectors = [element_selector(ref.element) for ref in map(parse_ref, refs) if ref]
    try:
        return [tuple(count) for count in await frame.evaluate(COUNT, [selectors, marks])]
    except Error:
        # The document went away under the count (the page navigated).
        raise FailedPrecondition(
            "the page is still loading; read it again", reason="PAGE_BUSY"
        ) from None


async def _count_css(page: Page, target: str) -> int | None:
    """None: not a selector Playwright's CSS engine takes."""
    try:
        return await page.locator(selector_for(target)).count()
    except Error:
        return None


def _check_count(field: str, target: str, count: int | None) -> None:
    if count is None:
        raise InvalidArgument(field, "is not an element ref or a valid CSS selector")
    if count == 0:
        raise FailedPrecondition(
            f"{field}: no element on the page matches {target!r}; read the page again",
            reason="TARGET_NOT_FOUND",
            field=field,
        )
    if count > 1:
        raise FailedPrecondition(
            f"{field}: {count} elements match {target!r}; name exactly one",
            reason="TARGET_AMBIGUOUS",
            field=field,
        )
