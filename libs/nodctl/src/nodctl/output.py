"""What nodctl prints: an aligned table for a person, or JSON for a script
(`--json`), from the same rows. Messages about what was done go to stdout,
problems to stderr."""

import datetime as dt
import json
import sys
from collections.abc import Mapping, Sequence
from typing import Any

from google.protobuf.timestamp_pb2 import Timestamp

Row = Mapping[str, Any]


class Failed(Exception):
    """Ends nodctl with this message on stderr and a non-zero exit code."""

    def __init__(self, message: str, code: int = 1) -> None:
        super().__init__(message)
        self.message = message
        self.code = code


def table(rows: Sequence[Row], columns: Sequence[str]) -> str:
    """Columns padded to their widest cell; a header line above."""
    cells = [[_text(row.get(column, "")) for column in columns] for row in rows]
    header = [column.replace("_", " ") for column in columns]
    widths = [max(len(line[i]) for line in [header, *cells]) for i in range(len(columns))]
    lines = [header, *cells]
    return "\n".join(
        "  ".join(cell.ljust(width) for cell, width in zip(line, widths, strict=True)).rstrip()
        for line in lines
    )


def _text(value: Any) -> str:
    if isinstance(value, dt.datetime):
        return value.astimezone(dt.UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
    return str(value)


def emit(rows: Sequence[Row], columns: Sequence[str], *, as_json: bool, empty: str) -> None:
    if as_json:
        print(json.dumps([dict(row) for row in rows], default=_json_value, indent=2))
    elif rows:
        print(table(rows, columns))
    else:
        print(empty)


def emit_json(value: Any) -> None:
    print(json.dumps(value, default=_json_value, indent=2))


def _json_value(value: Any) -> Any:
    if isinstance(value, dt.datetime):
        return value.astimezone(dt.UTC).isoformat()
    raise TypeError(f"{type(value).__name__} is not JSON")


def say(message: str) -> None:
    print(message)


def warn(message: str) -> None:
    print(f"nodctl: {message}", file=sys.stderr)


def stamp(value: Timestamp) -> dt.datetime | None:
    """A reply's timestamp; None when unset."""
    if not value.seconds and not value.nanos:
        return None
    return value.ToDatetime(tzinfo=dt.UTC)


def age(since: dt.datetime | None, now: dt.datetime) -> str:
    """How long ago, in the largest unit that fits: `45s`, `12m`, `3h 5m`, `2d 4h`."""
    if since is None:
        return "?"
    seconds = max(0, int((now - since).total_seconds()))
    if seconds < 60:
        return f"{seconds}s"
    minutes, _ = divmod(seconds, 60)
    if minutes < 60:
        return f"{minutes}m"
    hours, minutes = divmod(minutes, 60)
    if hours < 24:
        return f"{hours}h {minutes}m"
    days, hours = divmod(hours, 24)
    return f"{days}d {hours}h"
