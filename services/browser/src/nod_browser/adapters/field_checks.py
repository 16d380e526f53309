"""Asking the page whether a field may take a private value now
(field_check.js, the rules of domain/field_rules.py): its kind, its
visibility and where its form sends, in the field's frame, then through
each <iframe> above it, which must show it too (a transparent or covered
frame hides a field as well as the field's own style does).

Before the claim one evaluate per frame looks at every target there (the
fields and the submit); right before each field is filled, one looks at
that field, and the <iframe>s above it right before the first of its
frame's fields is filled (the later ones follow within milliseconds, and a
page can read no value out of another origin's frame however it shows it).
Each is a plain evaluate in the page's own world (a locator's would first
load Playwright's selector engine there, which costs more than the look).
The <iframe> elements above an entry's frames are found once per entry and
kept until it ends (FieldChecks.close)."""

import json
import pathlib
from dataclasses import dataclass

from playwright.async_api import ElementHandle, Error, Frame, Locator

from nod_browser.adapters.submission_target import DESTINATION
from nod_browser.domain.addresses import origin_of
from nod_browser.domain.field_rules import FIELD_DISABLED, FIELD_GONE, KINDS, rules_for_the_page

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
# The elements a selector names in the document, else in its open shadow
# roots (one target's are all in one root: a field's mark, on each of a
# code's boxes, or the one element a target names).
FIND = """(selector) => {
  let found = Array.from(document.querySelectorAll(selector));
  if (found.length) return found;
  const roots = [document];
  for (let i = 0; i < roots.length; i++) {
    for (const el of roots[i].querySelectorAll("*")) if (el.shadowRoot) roots.push(el.shadowRoot);
  }
  return roots.slice(1).flatMap((root) => Array.from(root.querySelectorAll(selector)));
}"""
# Focuses a field to type into, its text selected (as Playwright's fill does
# it), and says whether it took the focus: "" or the rule it breaks.
FOCUS = f"""(el) => {{
  if (el.select) el.select();
  el.focus();
  return el.getRootNode().activeElement === el ? "" : {json.dumps(FIELD_DISABLED)};
}}"""
# [[selector, want, every, focus], ...] -> CHECK's answer for the elements each
# selector names: every one (a field's mark, on each of a code's boxes), or
# the one it must name (null where it names none or several: a selector
# only Playwright's engine takes is asked on its own); `focus`: the first
# of them focused for typing, once it passed.
CHECK_ALL = f"""(items) => {{
  const check = {CHECK};
  const find = {FIND};
  const focus = {FOCUS};
  return items.map(([selector, want, every, focusing]) => {{
    let found;
    try {{
      found = find(selector);
    }} catch (error) {{
      return null;
    }}
    if (!every && found.length !== 1) return null;
    const answer = check(found, [want, null]);
    if (focusing && answer.rule === "") answer.rule = focus(found[0]);
    return answer;
  }});
}}"""
# [selector, n] -> the n-th element it names focused for typing: "" or the rule broken.
FOCUS_NTH = f"""([selector, n]) => {{
  const found = ({FIND})(selector);
  return n < found.length ? ({FOCUS})(found[n]) : {json.dumps(FIELD_GONE)};
}}"""


@dataclass(frozen=True)
class FieldState:
    rule: str  # "": the field may take the value now
    # The origin its form sends to (None: an address with no web origin, or unknown).
    destination: str | None = None


@dataclass(frozen=True)
class Look:
    """One target to look at before the claim."""

    selector: str  # as its frame's document takes it (querySelectorAll)
    element: Locator  # the same, for Playwright's engine
    frame: Frame
    want: str | None  # the value field it takes; None: a submit (its destination only)


class FieldChecks:
    def __init__(self) -> None:
        self._iframes: dict[Frame, ElementHandle] = {}
        # Frames whose <iframe>s were looked at since the grant.
        self._shown: set[Frame] = set()

    async def before_claim(self, looks: list[Look]) -> list[FieldState]:
        """Each target's state, in the order given."""
        by_frame: dict[Frame, list[int]] = {}
        for n, look in enumerate(looks):
            by_frame.setdefault(look.frame, []).append(n)
        found: list[dict] = [{}] * len(looks)
        try:
            for frame, numbers in by_frame.items():
                asked = [[looks[n].selector, looks[n].want, False, False] for n in numbers]
                for n, answer in zip(numbers, await frame.evaluate(CHECK_ALL, asked), strict=True):
                    found[n] = answer or await _evaluate(looks[n].element, looks[n].want)
                shown = [n for n in numbers if _shown_through_frames(looks[n].want, found[n])]
                rules = await self._through_frames(frame, [_point(found[n]) for n in shown])
                for n, rule in zip(shown, rules, strict=True):
                    found[n] = {"rule": rule} if rule else found[n]
        except Error:
            # A frame went away under the look (the page navigated).
            return [FieldState(FIELD_GONE)] * len(looks)
        return [_state(answer) for answer in found]

    async def field(
        self, name: str, selector: str, frame: Frame, *, focus: bool = False
    ) -> FieldState:
        """Whether the elements `selector` names in `frame` (a field's mark: one
        field, or a code's boxes) may take the value field `name` now; with
        `focus`, the (first) field is focused to type into, once it may."""
        try:
            (found,) = await frame.evaluate(CHECK_ALL, [[selector, name, True, focus]])
            if frame not in self._shown and _shown_through_frames(name, found):
                (rule,) = await self._through_frames(frame, [_point(found)])
                if rule:
                    found = {"rule": rule}
                else:
                    self._shown.add(frame)
        except Error:
            return FieldState(FIELD_GONE)
        return _state(found)

    async def _through_frames(self, frame: Frame, points: list[list[float]]) -> list[str]:
        """For each point of a field in `frame`, the first rule an <iframe>
        above it breaks there, or ""."""
        rules = [""] * len(points)
        pending = list(range(len(points)))
        while frame.parent_frame is not None and pending:
            iframe = self._iframes.get(frame)
            if iframe is None:
                iframe = self._iframes[frame] = await frame.frame_element()
            answers = await iframe.evaluate(CHECK, [None, [points[n] for n in pending]])
            still = []
            for n, answer in zip(pending, answers, strict=True):
                if answer["rule"]:
                    rules[n] = answer["rule"]
                else:
                    points[n] = _point(answer)
                    still.append(n)
            pending = still
            frame = frame.parent_frame
        return rules

    async def focus_nth(self, selector: str, frame: Frame, n: int) -> str:
        """Focuses the n-th element `selector` names (a code's box) to type
        into: "" or the rule it breaks."""
        try:
            return str(await frame.evaluate(FOCUS_NTH, [selector, n]))
        except Error:
            return FIELD_GONE

    async def close(self) -> None:
        for iframe in self._iframes.values():
            try:
                await iframe.dispose()
            except Error:
                pass  # its page is gone
        self._iframes.clear()
        self._shown.clear()


async def _evaluate(elements: Locator, want: str | None) -> dict:
    return await elements.evaluate_all(CHECK, [want, None])


def _shown_through_frames(want: str | None, found: dict) -> bool:
    return want is not None and not found["rule"] and KINDS[want].visible


def _point(found: dict) -> list[float]:
    return [found["x"], found["y"]]


def _state(found: dict) -> FieldState:
    if found["rule"]:
        return FieldState(found["rule"])
    return FieldState("", origin_of(found["destination"]) if found.get("destination") else None)
