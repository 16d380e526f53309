"""Targets: an element ref from ReadPage ("e12") or a CSS selector. A target
must name exactly one element: a private value never goes into a guess."""

from playwright.async_api import Error, Locator, Page

from nod_browser.domain import REF
from nodkit.errors import FailedPrecondition, InvalidArgument


def selector_for(target: str) -> str:
    if REF.fullmatch(target):
        return f'[data-nod-ref="{target}"]'
    # CSS only: Playwright's text=/xpath= engines would let a target match loosely.
    return f"css={target}"


async def locate_one(page: Page, field: str, target: str) -> Locator:
    locator = page.locator(selector_for(target))
    try:
        count = await locator.count()
    except Error:
        raise InvalidArgument(field, "is not an element ref or a valid CSS selector") from None
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
    return locator
