"""Targets: an element ref from ReadPage ("e12") or a CSS selector, and the
selectors each one stands for. A target must name exactly one element: a
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


def is_ref(target: str) -> bool:
    return REF.fullmatch(target) is not None


def dom_selector(target: str) -> str:
    """The selector as the page itself takes it (document.querySelectorAll)."""
    return f'[data-nod-ref="{target}"]' if is_ref(target) else target


def selector_for(target: str) -> str:
    """Playwright's selector: CSS only, since its text= and xpath= engines
    would let a target match loosely."""
    return dom_selector(target) if is_ref(target) else f"css={target}"
