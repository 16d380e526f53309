"""Typing a granted entry into the page and pressing submit, once.

The values are looked up (and a TOTP computed from its seed) before the first
keystroke, so a value the item lacks stops the entry with nothing typed.
They live only in this call's locals and the grant, which the caller clears,
and, as the pattern that masks them in page reads, in the session's memory.

Every field is marked private before the first keystroke with a mark of
this entry's own (a ref's field when its target is found, locating.py; a
CSS target's here, all in one evaluate); each value then goes into the
element carrying its mark, so it is never typed into an unmarked element
(one the page put in the field's place meanwhile).

Right before each field is filled, the page is asked again whether it may
take its value (field_checks.py), and in that same look the field is
focused with its text selected; the value is then typed over it as
Playwright's fill types (Input.insertText: trusted input events). A field
that changed since it was found (hidden, of another kind now) stops the
entry there, with nothing more typed (FieldChanged); one a page may undo in
a moment (disabled, covered) is looked at again for up to PASSING_WAIT_S,
as fill waits for a field to be ready. The caller clears what was typed.
The values the page is not to send elsewhere go to the session's value
guard right before the first keystroke.

A card's expiry month or year placed into a <select> is chosen, not typed:
the option standing for it is picked for every select before the first
keystroke, so a select with no such option stops the entry with nothing
typed (NoMatchingOption).
"""

import asyncio
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from playwright.async_api import Error, Frame, Locator, Page
from playwright.async_api import TimeoutError as PlaywrightTimeout

from nod_browser.adapters.field_checks import FIND, FieldChecks
from nod_browser.adapters.locating import ADD_MARK
from nod_browser.adapters.request_guard import SubmitAnswers
from nod_browser.adapters.value_guard import Held, ValuesSentElsewhere
from nod_browser.domain.card_expiry import EXPIRY_PARTS, Option, could_take, pick_option
from nod_browser.domain.code_boxes import CodeDoesNotFit, split_code
from nod_browser.domain.entry import SHOWN_BACK_FREELY, MissingValue, value_for
from nod_browser.domain.field_rules import PASSING_RULES, PASSING_WAIT_S, refusal_text
from nod_browser.domain.private_fields import ENTERED_ATTRIBUTE
from nod_browser.domain.shown_back import EnteredValues
from nod_browser.domain.targets import dom_selector, is_ref

# [[selector, mark], ...] -> whether each selector named one element, now marked.
MARK_ALL = f"""(marks) => marks.map(([selector, mark]) => {{
  let found;
  try {{ found = document.querySelectorAll(selector); }} catch (error) {{ return false; }}
  if (found.length !== 1) return false;
  ({ADD_MARK})(found[0], mark);
  return true;
}})"""


# Empties the inputs given, as a person would (the page's own handlers hear it).
CLEAR = """(elements) => {
  const setValue = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, "value").set;
  for (const el of elements) {
    if (el.tagName !== "INPUT" || !el.value) continue;
    setValue.call(el, "");
    el.dispatchEvent(new Event("input", { bubbles: true }));
    el.dispatchEvent(new Event("change", { bubbles: true }));
  }
}"""
# How long clearing the fields may take: the page may be going away.
CLEAR_TIMEOUT_S = 2.0
# How often a field not ready yet is looked at again.
READY_POLL_S = 0.1


# A select's options as [[value, text], ...]; null for any other element.
SELECT_OPTIONS = """(el) => el.tagName === "SELECT"
  ? Array.from(el.options, (o) => [o.value, o.textContent.trim()]) : null"""
# [selector] -> [whether it names one element (the document, then its open
# shadow roots), and SELECT_OPTIONS of it].
ONE_SELECT_OPTIONS = f"""(selector) => {{
  let found;
  try {{ found = ({FIND})(selector); }} catch (error) {{ return [false, null]; }}
  return found.length === 1 ? [true, ({SELECT_OPTIONS})(found[0])] : [false, null];
}}"""


class FieldChanged(Exception):
    """Right before it was filled, a field broke one of the field rules it
    passed before the claim (field_rules.py)."""

    def __init__(self, name: str, rule: str) -> None:
        super().__init__(f"fields.{name} changed before it was filled ({rule})")
        self.name = name
        self.rule = rule


class SubmissionMoved(Exception):
    """Right before submit was pressed, the form sent elsewhere than before the claim."""

    def __init__(self, destination: str | None) -> None:
        super().__init__("the form now sends elsewhere")
        self.destination = destination


class NoMatchingOption(Exception):
    """A select the card's expiry part goes into has no option for it."""

    def __init__(self, name: str) -> None:
        super().__init__(f"no option of the {name} select matches the card")
        self.name = name


@dataclass(frozen=True)
class Placement:
    name: str  # the value's field, e.g. "password"
    target: str  # as the caller gave it: an element ref or a CSS selector
    element: Locator
    mark: str  # this entry's private mark for the field's element
    # The frame the element is in (a ref names it; a CSS target: the page's).
    frame: Frame
    # A one-time code split over boxes: how many (0: one element takes the value).
    boxes: int = 0


def entry_marks(names: list[str]) -> dict[str, str]:
    """A private mark per field, of this entry's own (one word: no spaces)."""
    entry = uuid.uuid4().hex[:12]
    return {name: f"{entry}-{n}" for n, name in enumerate(names)}


async def mark_private(page: Page, places: list[Placement]) -> list[Locator]:
    """Marks the elements of CSS targets (refs' were marked when found);
    returns the locators of every place's marked element."""
    unmarked = [place for place in places if not is_ref(place.target)]
    if unmarked:
        wanted = [[dom_selector(place.target), place.mark] for place in unmarked]
        found = await page.evaluate(MARK_ALL, wanted)
        for place, done in zip(unmarked, found, strict=True):
            if not done:
                # A CSS target only Playwright's engine finds (e.g. in a shadow root).
                await place.element.evaluate(ADD_MARK, place.mark)
    return [place.frame.locator(marked(place)) for place in places]


def marked(place: Placement) -> str:
    """The selector of the element(s) carrying the place's private mark."""
    return f'[{ENTERED_ATTRIBUTE}~="{place.mark}"]'


async def fill_fields(
    page: Page,
    grant,
    places: list[Placement],
    *,
    entered: EnteredValues,
    checks: FieldChecks,
    held: Held,
    filled: list[Locator],
    action_timeout_s: float,
    progress: dict[str, str],
) -> None:
    """Every field filled (or chosen); nothing pressed. `filled` gets each
    field as it is typed into (for clearing, should the entry stop)."""
    timeout_ms = action_timeout_s * 1000
    values = [value_for(place.name, grant.secret_fields) for place in places]
    # A code that does not fit its boxes stops the entry before any keystroke.
    split = [split_code(v, p.boxes) if p.boxes else [] for p, v in zip(places, values, strict=True)]
    for place, value in zip(places, values, strict=True):
        if place.name not in SHOWN_BACK_FREELY:
            entered.remember(value)  # before the first keystroke
    try:
        progress["stage"] = "marking the fields private"
        fields = await mark_private(page, places)
        progress["stage"] = "finding the options to choose"
        choices = [
            await _option_for(place, field, value)
            for place, field, value in zip(places, fields, values, strict=True)
        ]
        held.take(
            [v for p, v in zip(places, values, strict=True) if p.name not in SHOWN_BACK_FREELY]
        )
        filling = zip(places, fields, values, split, choices, strict=True)
        for place, field, value, characters, choice in filling:
            progress["stage"] = f"checking {place.name}"
            await _ready(place, checks, focus=choice is None)
            progress["stage"] = f"filling {place.name}"
            filled.append(field)
            if characters:
                await _type_boxes(place, checks, characters)
            elif choice is not None:
                await field.select_option(value=choice.value, timeout=timeout_ms)
            else:
                # Focused by its check, its text selected: typed over, as
                # Playwright's fill types (trusted input events), one look sooner.
                await place.frame.page.keyboard.insert_text(value)
    finally:
        values.clear()
        split.clear()


async def press_submit(
    page: Page,
    submit: Locator,
    *,
    submit_answers: SubmitAnswers,
    on_submit_answered: Callable[[], Awaitable[None]],
    deadline: float,
    progress: dict[str, str],
) -> None:
    """Presses submit once. on_submit_answered is awaited the moment the
    site has answered the submission the click started (only then: not for
    anything the page sent while its fields were filled), before the page
    takes the answer; the click still waits for the page."""
    progress["stage"] = "pressing submit"
    # The click waits for the navigation it starts; a site that holds or
    # drops the answer makes it fail or time out: UNCERTAIN, never a second press.
    remaining_s = max(deadline - asyncio.get_running_loop().time(), 0.001)
    with submit_answers.calling(page, on_submit_answered):
        await submit.click(timeout=remaining_s * 1000)


async def select_options(frame: Frame, selector: str, field: Locator) -> list[Option] | None:
    """A select's options; None when the field is no select. Read with a
    plain evaluate in the field's frame (a locator's would first load
    Playwright's engine into the page's own world, tens of milliseconds on
    a page just loaded); through `field` for a selector only that engine takes."""
    named_one, found = await frame.evaluate(ONE_SELECT_OPTIONS, selector)
    if not named_one:
        found = await field.evaluate(SELECT_OPTIONS)
    return None if found is None else [Option(str(v), str(t)) for v, t in found]


async def check_expiry_selects(places: list[Placement], this_year: int) -> None:
    """Before the claim: each select an expiry part goes into could take
    one (card_expiry.could_take), else NoMatchingOption, nothing claimed."""
    for place in places:
        if place.name in EXPIRY_PARTS:
            options = await select_options(place.frame, dom_selector(place.target), place.element)
            if options is not None and not could_take(place.name, options, this_year):
                raise NoMatchingOption(place.name)


async def _option_for(place: Placement, field: Locator, value: str) -> Option | None:
    """The option an expiry part chooses in a select; None for a field it is
    typed into (a text input takes "12" or "2029" as it is)."""
    name = place.name
    if name not in EXPIRY_PARTS:
        return None
    options = await select_options(place.frame, marked(place), field)
    if options is None:
        return None
    option = pick_option(name, value, options)
    if option is None:
        raise NoMatchingOption(name)
    return option


async def _ready(place: Placement, checks: FieldChecks, *, focus: bool) -> None:
    """The field may take its value now (focused, to be typed into), or
    FieldChanged; a rule a page may undo in a moment is waited out briefly."""
    loop = asyncio.get_running_loop()
    until = loop.time() + PASSING_WAIT_S
    while True:
        state = await checks.field(place.name, marked(place), place.frame, focus=focus)
        if not state.rule:
            return
        if state.rule not in PASSING_RULES or loop.time() >= until:
            raise FieldChanged(place.name, state.rule)
        await asyncio.sleep(READY_POLL_S)


async def _type_boxes(place: Placement, checks: FieldChecks, characters: list[str]) -> None:
    """One character per box, in order; each box carries the entry's mark
    (the first was focused by its check)."""
    for n, character in enumerate(characters):
        if n:
            rule = await checks.focus_nth(marked(place), place.frame, n)
            if rule:
                raise FieldChanged(place.name, rule)
        await place.frame.page.keyboard.insert_text(character)


async def clear_fields(filled: list[Locator]) -> None:
    """Empties the fields an entry typed into before it stopped; the page may
    have moved on (nothing to clear then)."""
    try:
        async with asyncio.timeout(CLEAR_TIMEOUT_S):
            for field in filled:
                await field.evaluate_all(CLEAR)
    except (Error, TimeoutError):
        pass


def interrupted_reason(stage: str, error: BaseException) -> str:
    """Why an entry ended UNCERTAIN. Built from the error's kind only: an
    error's text could quote the page or a value."""
    cleared = "what was typed is cleared"
    if isinstance(error, FieldChanged):
        changed = refusal_text(f"fields.{error.name}", error.rule)
        return f"{changed}; it changed after the claim: nothing more was typed, {cleared}"
    if isinstance(error, SubmissionMoved):
        where = error.destination or "an address with no web origin"
        return (
            f"submit: the form now sends what is typed to {where}, not to the site the values"
            f" are entered for; submit was not pressed, {cleared}"
        )
    if isinstance(error, ValuesSentElsewhere):
        return (
            f"the page tried to send the values to {error.destination}; nothing reached it,"
            f" but the page held them ({cleared})"
        )
    if isinstance(error, asyncio.CancelledError):
        return f"interrupted while {stage}: stopped, or the caller went away"
    if isinstance(error, TimeoutError | PlaywrightTimeout):
        return f"timed out while {stage}"
    if isinstance(error, MissingValue):
        return f"the granted entry has no {error.name}; nothing was typed"
    if isinstance(error, NoMatchingOption):
        return f"no option of the {error.name} select matches the card; nothing was typed"
    if isinstance(error, CodeDoesNotFit):
        return f"{error}; nothing was typed"
    if isinstance(error, Error):
        return f"the page failed while {stage} ({type(error).__name__})"
    return f"unexpected error while {stage} ({type(error).__name__})"
