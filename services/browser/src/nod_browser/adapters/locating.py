"""Finding a target on the page: exactly one element, or a refusal naming the
field (nothing is claimed or typed on a guess)."""

from playwright.async_api import Error, Locator, Page

from nod_browser.domain.targets import selector_for
from nodkit.errors import FailedPrecondition, InvalidArgument


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
