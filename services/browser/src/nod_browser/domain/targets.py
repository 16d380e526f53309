"""Targets: an element ref from ReadPage or a CSS selector, and the
selectors each one stands for. A target must name exactly one element: a
private value never goes into a guess.

A ref names its frame: "e12" is in the page itself (frame "f0"), "f2.e7" is
ref "e7" of frame f2's document (each document counts its own refs). A CSS
selector is looked for in the page itself.
"""

import re
from dataclasses import dataclass

from nodkit.errors import InvalidArgument

MAIN_FRAME = "f0"
REF = re.compile(r"(?:(?P<frame>f\d{1,4})\.)?(?P<element>e\d{1,6})")
MAX_TARGET = 500


@dataclass(frozen=True)
class Ref:
    frame_id: str  # "f0": the page itself
    element: str  # the document's own ref, e.g. "e7"


def check_target(field: str, target: str) -> str:
    if not target.strip():
        raise InvalidArgument(field, "is required: an element ref from ReadPage or a CSS selector")
    if len(target) > MAX_TARGET or not target.isprintable():
        raise InvalidArgument(field, f"must be at most {MAX_TARGET} printable characters")
    return target.strip()


def is_ref(target: str) -> bool:
    return REF.fullmatch(target) is not None


def parse_ref(target: str) -> Ref | None:
    """None: not a ref (a CSS selector)."""
    found = REF.fullmatch(target)
    if found is None:
        return None
    return Ref(found["frame"] or MAIN_FRAME, found["element"])


def qualified_ref(frame_id: str, element: str) -> str:
    """The ref a read gives out: bare in the page itself, "fK.eN" in frame fK."""
    return element if frame_id == MAIN_FRAME or not element else f"{frame_id}.{element}"


def element_selector(element: str) -> str:
    """The selector of a document's own ref, as the document takes it."""
    return f'[data-nod-ref="{element}"]'


def dom_selector(target: str) -> str:
    """The selector as its document takes it (querySelectorAll): a ref's
    within its own frame's document."""
    ref = parse_ref(target)
    return element_selector(ref.element) if ref is not None else target


def selector_for(target: str) -> str:
    """Playwright's selector, for the target's frame: CSS only, since its
    text= and xpath= engines would let a target match loosely."""
    return dom_selector(target) if is_ref(target) else f"css={target}"
