"""Finding targets on the page: each names exactly one element, or the call
is refused naming the field (nothing is claimed or typed on a guess).

Refs are the page reader's own marks, set on the page's elements (never in
a shadow root), so they are counted all at once in one evaluate. A CSS
selector is counted by Playwright's engine, which also looks into shadow
roots, as clicks and fills find elements; those counts run side by side.

A private entry's fields are marked private in that same evaluate: a ref
that names exactly one element gets its field's mark there and then, so the
entry needs no second look at the page before its first keystroke.
"""

import asyncio
import json

from playwright.async_api import Error, Locator, Page

from nod_browser.domain.private_fields import ENTERED_ATTRIBUTE
from nod_browser.domain.targets import dom_selector, is_ref, selector_for
from nodkit.errors import FailedPrecondition, InvalidArgument

ATTRIBUTE = json.dumps(ENTERED_ATTRIBUTE)
# An element's private marks are a list of words, one per entry, so entries
# of one operation racing each other each keep their own.
ADD_MARK = f"""(el, mark) => {{
  const had = el.getAttribute({ATTRIBUTE});
  el.setAttribute({ATTRIBUTE}, had ? had + " " + mark : mark);
}}"""
# [selector, ...], [mark or null, ...] -> each selector's count; an element
# named exactly once gets its mark.
COUNT = f"""([selectors, marks]) => selectors.map((selector, i) => {{
  const found = document.querySelectorAll(selector);
  if (found.length === 1 && marks[i]) ({ADD_MARK})(found[0], marks[i]);
  return found.length;
}})"""


async def locate_all(
    page: Page, targets: dict[str, str], marks: dict[str, str] | None = None
) -> dict[str, Locator]:
    """`targets`: field -> target, checked in that order. `marks`: field ->
    the private mark its element takes if the target is a ref (a CSS target
    is marked by the entry itself, after the claim: filling.mark_private)."""
    marks = marks or {}
    refs = [field for field, target in targets.items() if is_ref(target)]
    selectors = [field for field in targets if field not in refs]
    ref_counts, css_counts = await asyncio.gather(
        _count_refs(page, [targets[field] for field in refs], [marks.get(f) for f in refs]),
        asyncio.gather(*(_count_css(page, targets[field]) for field in selectors)),
    )
    counts: dict[str, int | None] = dict(zip(refs, ref_counts, strict=True))
    counts.update(zip(selectors, css_counts, strict=True))
    for field, target in targets.items():
        _check_count(field, target, counts[field])
    return {field: page.locator(selector_for(target)) for field, target in targets.items()}


async def locate_one(page: Page, field: str, target: str) -> Locator:
    return (await locate_all(page, {field: target}))[field]


async def _count_refs(page: Page, refs: list[str], marks: list[str | None]) -> list[int]:
    if not refs:
        return []
    try:
        return await page.evaluate(COUNT, [[dom_selector(ref) for ref in refs], marks])
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
