"""Structured logging: an event name plus key/values, through the redactor,
with the request id. One JSON object a line for machines (a pipe, a file,
a log collector); aligned, coloured lines for a person at a terminal
(structlog's ConsoleRenderer). NOD_LOG_FORMAT=auto (the default) picks by
whether the stream is a terminal; console or json force one.

The standard library's loggers (grpc, SQLAlchemy, Alembic, uvicorn) are
routed through the same chain. The redactor runs before either renderer:
nothing private reaches a line, whichever format it is printed in."""

import enum
import logging
import sys
from typing import Any, TextIO

import structlog

from nodkit import context
from nodkit.redaction import redact_event


class LogFormat(enum.StrEnum):
    AUTO = "auto"
    CONSOLE = "console"
    JSON = "json"


class LogColor(enum.StrEnum):
    """Colours in the console format: AUTO when the stream is a terminal.
    ALWAYS is for a supervisor that prints a service's lines to a terminal
    through a pipe of its own (`make run`)."""

    AUTO = "auto"
    ALWAYS = "always"
    NEVER = "never"


def _add_request_context(_logger, _method, event_dict):
    request_id = context.request_id.get()
    if request_id is not None:
        event_dict.setdefault("request_id", request_id)
    return event_dict


# Events a person reads as a sentence in the console format (their keys
# become the sentence); JSON keeps the event name and every key.
SENTENCES = {
    "server.serving": "{service} serving on {address}, version {version}",
}


def _as_sentence(_logger, _method, event_dict):
    template = SENTENCES.get(event_dict.get("event", ""))
    if template is None:
        return event_dict
    try:
        sentence = template.format_map(event_dict)
    except KeyError:  # a key missing: the event as it is
        return event_dict
    used = {key for key in event_dict if "{" + key + "}" in template}
    return {k: v for k, v in event_dict.items() if k not in used} | {"event": sentence}


def _is_terminal(stream: TextIO) -> bool:
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty and isatty())
    except ValueError:  # a closed stream
        return False


def chosen_format(fmt: LogFormat | str, stream: TextIO) -> LogFormat:
    """AUTO resolved: CONSOLE on a terminal, JSON anywhere else."""
    fmt = LogFormat(fmt)
    if fmt is LogFormat.AUTO:
        return LogFormat.CONSOLE if _is_terminal(stream) else LogFormat.JSON
    return fmt


def _renderer(fmt: LogFormat, color: LogColor, stream: TextIO) -> Any:
    if fmt is LogFormat.JSON:
        return structlog.processors.JSONRenderer()
    colors = color is LogColor.ALWAYS or (color is LogColor.AUTO and _is_terminal(stream))
    # The exception arrives as text (format_exc_info, then the redactor): printed as it is.
    return structlog.dev.ConsoleRenderer(
        colors=colors, pad_event_to=24, exception_formatter=structlog.dev.plain_traceback
    )


def configure_logging(
    service: str,
    *,
    level: str = "INFO",
    fmt: LogFormat | str = LogFormat.JSON,
    color: LogColor | str = LogColor.AUTO,
    stream: TextIO | None = None,
) -> LogFormat:
    """nod's own loggers write straight to the stream (no stdlib handler in
    the way: one line per call is on every request's path); the standard
    library's loggers go through the same processors via a formatter.
    Returns the format chosen."""
    out = stream or sys.stderr
    chosen = chosen_format(fmt, out)
    shared: list[Any] = [structlog.processors.add_log_level, _add_request_context]
    if chosen is LogFormat.JSON:
        # A collector reads many services' lines at once: each says whose it is, and when.
        shared += [
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            lambda _l, _m, ev: {"service": service, **ev},
        ]
    else:
        # A person reads one service's lines, or make run's with the name before each.
        shared.append(structlog.processors.TimeStamper(fmt="%H:%M:%S", utc=False))
    renderer = _renderer(chosen, LogColor(color), out)
    # Redaction last before rendering: the console renderer formats
    # exceptions and values itself, so they must reach it redacted.
    rendering = (
        [redact_event, renderer]
        if chosen is LogFormat.JSON
        else [redact_event, _as_sentence, renderer]
    )
    structlog.configure(
        processors=[*shared, structlog.processors.format_exc_info, *rendering],
        wrapper_class=structlog.make_filtering_bound_logger(logging.getLevelName(level.upper())),
        logger_factory=structlog.WriteLoggerFactory(file=out),
        cache_logger_on_first_use=True,
    )
    formatter = structlog.stdlib.ProcessorFormatter(
        foreign_pre_chain=shared,
        processors=[
            structlog.stdlib.ProcessorFormatter.remove_processors_meta,
            structlog.processors.format_exc_info,
            *rendering,
        ],
    )
    handler = logging.StreamHandler(out)
    handler.setFormatter(formatter)
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
    # Alembic names each plugin it sets up, some 28 lines per migration run.
    logging.getLogger("alembic.runtime.plugins").setLevel(logging.WARNING)
    return chosen


def get_logger(name: str):
    return structlog.get_logger(logger_name=name)
