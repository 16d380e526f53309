"""Asking the page whether a field may take a private value now
(field_check.js, the rules of domain/field_rules.py): one evaluate in the
field's frame for its kind, visibility and form's destination, then one on
each <iframe> above it, which must show it too (a transparent or covered
frame hides a field as well as the field's own style does)."""

import json
import pathlib
from dataclasses import dataclass

from playwright.async_api import Error, Frame, Locator

from nod_browser.adapters.submission_target import DESTINATION
from nod_browser.domain.addresses import origin_of
from nod_browser.domain.field_rules import FIELD_GONE, KINDS, rules_for_the_page

HERE = pathlib.Path(__file__).parent
# private_field.js, taking its rules as an argument (one kind's at a time).
_PRIVATE_FIELD_OF = (
    (HERE / "private_field.js").read_text().replace("__PRIVATE_FIELD_RULES__", "RULES")
)
CHECK = (
    (HERE / "field_check.js")
    .read_text()
    .replace("__PRIVATE_FIELD__", _PRIVATE_FIELD_OF)
    .replace("__DESTINATION__", DESTINATION)
    .replace("__FIELD_RULES__", json.dumps(rules_for_the_page()))
)


@dataclass(frozen=True)
class FieldState:
    rule: str  # "": the field may take the value now
    # The origin the field's form sends to (None: no web origin, or unknown).
    destination: str | None = None


async def check_field(name: str, elements: Locator, frame: Frame) -> FieldState:
    """Whether the elements of `elements` (one field, or a code's boxes) may
    take the value field `name` now."""
    try:
        found = await elements.evaluate_all(CHECK, [name, None])
        if found["rule"]:
            return FieldState(found["rule"])
        if KINDS[name].visible:
            rule = await _shown_through_frames(name, frame, [found["x"], found["y"]])
            if rule:
                return FieldState(rule)
    except Error:
        # Its frame went away under the look (the page navigated).
        return FieldState(FIELD_GONE)
    return FieldState("", origin_of(found["destination"]))


async def _shown_through_frames(name: str, frame: Frame, point: list[float]) -> str:
    """The first rule an <iframe> above the field breaks at the field's point, or ""."""
    while frame.parent_frame is not None:
        element = await frame.frame_element()
        try:
            found = await element.evaluate(CHECK, [name, point])
        finally:
            await element.dispose()
        if found["rule"]:
            return found["rule"]
        point = [found["x"], found["y"]]
        frame = frame.parent_frame
    return ""
