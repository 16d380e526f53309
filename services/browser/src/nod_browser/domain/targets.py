"""Targets: an element ref from ReadPage ("e12") or a CSS selector, and the
selector each one stands for. A target must name exactly one element: a
private value never goes into a guess."""

import re

from nodkit.errors import InvalidArgument

REF = re.compile(r"e\d{1,6}")
MAX_TARGET = 500


def check_target(field: str, target: str) -> str:
    if not target.strip():
        raise InvalidArgument(field, "is required: an element ref from ReadPage or a CSS selector")
    if len(target) > MAX_TARGET or not target.isprintable():
        raise InvalidArgument(field, f"must be at most {MAX_TARGET} printable characters")
    return target.strip()


def ref_selector(ref: str) -> str:
    return f'[data-nod-ref="{ref}"]'


def selector_for(target: str) -> str:
    """The Playwright selector: CSS only, since Playwright's text= and xpath=
    engines would let a target match loosely."""
    return ref_selector(target) if REF.fullmatch(target) else f"css={target}"
