"""Where a submission sends a form's fields: the origin of the submit
element's formaction, else of its form's action (destination.js). Read
before the claim with the fields (field_checks.py, which reads the fields'
own forms too) and again right before submit is pressed, here."""

import pathlib

from playwright.async_api import Error, Frame

from nod_browser.domain.addresses import origin_of

DESTINATION = (pathlib.Path(__file__).parent / "destination.js").read_text()
# The one element a selector names in the document or its open shadow roots.
_OF_THE_ONE = f"""(selector) => {{
  const roots = [document];
  for (let i = 0; i < roots.length; i++) {{
    for (const el of roots[i].querySelectorAll("*")) if (el.shadowRoot) roots.push(el.shadowRoot);
  }}
  const found = roots.flatMap((root) => Array.from(root.querySelectorAll(selector)));
  return found.length === 1 ? ({DESTINATION})(found[0]) : null;
}}"""


async def submission_origin(frame: Frame, selector: str) -> str | None:
    """The origin a press of the element `selector` names in `frame` sends its
    form to (the frame's own when it is in no form); None when that address
    has no web origin, or the element is gone."""
    try:
        found = await frame.evaluate(_OF_THE_ONE, selector)
    except Error:
        return None
    return origin_of(found) if found else None
