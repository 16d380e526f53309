"""Where a submission sends a form's fields: the origin of the submit
element's formaction, else of its form's action (destination.js). Read
before the claim and again right before submit is pressed; the fields' own
forms are read with them (field_checks.py)."""

import pathlib

from playwright.async_api import Error, Locator

from nod_browser.domain.addresses import origin_of

DESTINATION = (pathlib.Path(__file__).parent / "destination.js").read_text()


async def submission_origin(element: Locator) -> str | None:
    """The origin a press of `element` sends its form to (the frame's own when
    it is in no form); None when that address has no web origin, or the
    element is gone."""
    try:
        return origin_of(await element.evaluate(DESTINATION))
    except Error:
        return None
