"""Structured logging: an event name plus key/values, one JSON object a line,
with the request id, through the redactor. The standard library's loggers
(grpc, SQLAlchemy, Alembic, uvicorn) are routed through the same chain."""

import logging
import sys
from typing import Any, TextIO

import structlog

from nodkit import context
from nodkit.redaction import redact_event


def _add_request_context(_logger, _method, event_dict):
    request_id = context.request_id.get()
    if request_id is not None:
        event_dict.setdefault("request_id", request_id)
    return event_dict


def configure_logging(
    service: str, *, level: str = "INFO", fmt: str = "json", stream: TextIO | None = None
) -> None:
    """nod's own loggers write straight to the stream (no stdlib handler in
    the way: one line per call is on every request's path); the standard
    library's loggers go through the same processors via a formatter."""
    out = stream or sys.stderr
    shared: list[Any] = [
        structlog.processors.add_log_level,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
        _add_request_context,
        lambda _l, _m, ev: {"service": service, **ev},
    ]
    renderer = (
        structlog.dev.ConsoleRenderer(colors=False)
        if fmt == "console"
        else structlog.processors.JSONRenderer()
    )
    structlog.configure(
        processors=[*shared, structlog.processors.format_exc_info, redact_event, renderer],
        wrapper_class=structlog.make_filtering_bound_logger(logging.getLevelName(level.upper())),
        logger_factory=structlog.WriteLoggerFactory(file=out),
        cache_logger_on_first_use=True,
    )
    formatter = structlog.stdlib.ProcessorFormatter(
        foreign_pre_chain=shared,
        processors=[
            structlog.stdlib.ProcessorFormatter.remove_processors_meta,
            structlog.processors.format_exc_info,
            redact_event,
            renderer,
        ],
    )
    handler = logging.StreamHandler(out)
    handler.setFormatter(formatter)
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())


def get_logger(name: str):
    return structlog.get_logger(logger_name=name)
