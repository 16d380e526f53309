"""A page's picture for the person (never the model): which of the text a
page shows holds a value the session entered, and where the paint goes.

The page's text comes in segments (a text node, a field's value, what a
::before shows), in document order. They are matched together, as a page
read's text is, so a value spread one character per element is found; a
match marks every segment it touches. Boxes are (x, y, width, height) in
CSS pixels; paint is laid over whole pixels, a pixel past each edge, so no
edge of a glyph is left half covered.
"""

import math
from bisect import bisect_right
from collections.abc import Callable, Iterable, Sequence

Box = tuple[float, float, float, float]
Spans = Callable[[str], list[tuple[int, int]]]
# Paint reaches this far past each edge of what it covers.
PAD = 1


def tidy(text: str) -> str:
    """Blank space as a reader sees it: one space for any run of it."""
    return " ".join(text.split())


def shown_in(spans: Spans, texts: Sequence[str]) -> set[int]:
    """The indexes of the segments a match of `spans` touches, the
    segments read as one text, one per line."""
    starts: list[int] = []
    at = 0
    lines = []
    for text in texts:
        line = tidy(text)
        starts.append(at)
        lines.append(line)
        at += len(line) + 1
    touched: set[int] = set()
    for start, end in spans("\n".join(lines)):
        index = max(0, bisect_right(starts, start) - 1)
        while index < len(starts) and starts[index] < end:
            touched.add(index)
            index += 1
    return touched


def shows_any(spans: Spans, texts: Iterable[str]) -> bool:
    """Whether any of the texts, read together, shows a value."""
    return bool(spans("\n".join(tidy(text) for text in texts)))


def moved(box: Box, dx: float, dy: float) -> Box:
    x, y, w, h = box
    return (x + dx, y + dy, w, h)


def clipped(box: Box, within: Box) -> Box | None:
    """The part of `box` inside `within`; None when none is."""
    x, y, w, h = box
    cx, cy, cw, ch = within
    left, top = max(x, cx), max(y, cy)
    right, bottom = min(x + w, cx + cw), min(y + h, cy + ch)
    if right <= left or bottom <= top:
        return None
    return (left, top, right - left, bottom - top)


def paint_boxes(boxes: Iterable[Box], width: int, height: int) -> list[tuple[int, int, int, int]]:
    """Whole-pixel rectangles (x, y, width, height) covering each box with
    PAD to spare, inside the picture; duplicates once."""
    painted: set[tuple[int, int, int, int]] = set()
    for x, y, w, h in boxes:
        left = max(0, math.floor(x) - PAD)
        top = max(0, math.floor(y) - PAD)
        right = min(width, math.ceil(x + w) + PAD)
        bottom = min(height, math.ceil(y + h) + PAD)
        if right > left and bottom > top:
            painted.add((left, top, right - left, bottom - top))
    return sorted(painted)
