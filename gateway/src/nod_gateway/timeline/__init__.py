"""A task's history as lines a person reads, in words: one line per step,
written from the step's typed facts (what the page said after an entry,
what the shop said after a payment, the page it left the browser on), what
the person said, a model request only when an attempt failed or was tried
again, and each end with how the task came out. Tool names, JSON and what
nod told the model are never a line's words: the exact arguments, the
private entry's claim and the model's reason are folded under the line.

A step's line has a stable key, its number: built again from each of the
step's events (started, ended, resolved), it takes the place of the line
shown before, on the page and in the live stream (static/nod.js), so a
step appears once and changes in place.

Built the same way for the page and for each live event, so a line looks
the same however it arrived. A step with no claim, approval or payment id
asks no service: describe_step is pure, and line() looks up only the ids a
step has."""

from nod_gateway.timeline.events import describe, history, line, one_per_line, read
from nod_gateway.timeline.lines import Found, Line, Timeline
from nod_gateway.timeline.lookups import look_up
from nod_gateway.timeline.steps import describe_step

__all__ = [
    "Found",
    "Line",
    "Timeline",
    "describe",
    "describe_step",
    "history",
    "line",
    "look_up",
    "one_per_line",
    "read",
]
