"""A saved card's expiry ("MM/YY" or "MM/YYYY", as the vault keeps it) for
sites that ask for it in two parts, often two <select>s: the month and the
year as value fields of their own, and the option of a select that stands
for them. Plain Python; values are never logged or put in errors."""

import calendar
import re
from dataclasses import dataclass

EXPIRY_PARTS = frozenset({"expiry_month", "expiry_year"})
EXPIRY = re.compile(r"\s*(\d{1,2})\s*/\s*(\d{2}|\d{4})\s*")
# Two-digit years are this century's (a card expires within years, not decades).
CENTURY = 2000


@dataclass(frozen=True)
class Option:
    """One option of a select, as the page has it."""

    value: str
    text: str


def expiry_part(name: str, expiry: str) -> str | None:
    """expiry_month as two digits ("07"), expiry_year as four ("2029");
    None when the expiry is not one."""
    match = EXPIRY.fullmatch(expiry or "")
    if match is None:
        return None
    month, year = match.groups()
    if name == "expiry_month":
        return f"{int(month):02d}"
    return str(CENTURY + int(year)) if len(year) == 2 else year


def _month_spellings(month: int) -> set[str]:
    """12 -> "12", "dec", "december" (lower case)."""
    return {
        str(month),
        f"{month:02d}",
        calendar.month_abbr[month].lower(),
        calendar.month_name[month].lower(),
    }


def _year_spellings(year: int) -> set[str]:
    """2029 -> "2029", "29"."""
    return {str(year), f"{year % 100:02d}"}


def _words(text: str) -> list[str]:
    """An option's words, lower case: "12 - December" -> ["12", "december"]."""
    return re.findall(r"[a-z]+|\d+", text.lower())


def _stands_for(option: Option, spellings: set[str]) -> bool:
    if option.value.strip().lower() in spellings or option.text.strip().lower() in spellings:
        return True
    # "12 - Dec", "December (12)": one of its words spells it, and no word
    # spells something else of the same kind (a number that isn't it).
    words = _words(option.text)
    numbers = [w for w in words if w.isdigit()]
    named = any(w in spellings for w in words)
    return named and all(n in spellings or n.lstrip("0") in spellings for n in numbers)


def pick_option(name: str, wanted: str, options: list[Option]) -> Option | None:
    """The one option that stands for the wanted month or year, or None (no
    option does, or several do: a private value never goes into a guess)."""
    number = int(wanted)
    spellings = _month_spellings(number) if name == "expiry_month" else _year_spellings(number)
    found = [option for option in options if _stands_for(option, spellings)]
    return found[0] if len(found) == 1 else None


def could_take(name: str, options: list[Option], this_year: int) -> bool:
    """Before anything is claimed, whether a select could take a card's
    expiry part at all: a month select offers all twelve months; a year
    select offers a year after this one (a card's start-date select, which
    sits beside the expiry on many forms, offers only years gone by)."""
    if name == "expiry_month":
        return all(
            any(_stands_for(option, _month_spellings(month)) for option in options)
            for month in range(1, 13)
        )
    years = {int(w) for option in options for w in _words(option.text) + _words(option.value)
             if w.isdigit() and len(w) == 4}  # fmt: skip
    return any(year > this_year for year in years)
