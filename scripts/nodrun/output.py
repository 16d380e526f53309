"""What make run's processes print, on its way to the person: honcho's
printer with each line named (or one JSON object a line, for a collector),
written to an output that goes quiet once nobody reads it.

honcho prints a line before it signals each service. With its output's
reader gone (a test or benchmark that died), that print raised
BrokenPipeError inside the signal handler, so no service was signalled,
and the supervisor, waiting on its helper processes, lived on. Here the
output goes quiet once its reader is gone (nodrun/supervisor.py stops
everything whatever the output does)."""

import datetime
import io
import json
import os
from typing import TextIO

from honcho.printer import Message, Printer

# The name honcho gives its own lines ("claims started (pid=...)"); the
# supervisor's about restarts go under it too.
SYSTEM = "system"


class OutputWhileRead(io.TextIOBase):
    """`stream` until a write finds nobody reading it; then nothing."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        self._read = True

    def write(self, text: str) -> int:
        if self._read:
            try:
                self._stream.write(text)
            except OSError:  # BrokenPipeError, or the terminal went away
                self._gone()
        return len(text)

    def flush(self) -> None:
        if self._read:
            try:
                self._stream.flush()
            except OSError:
                self._gone()

    def isatty(self) -> bool:
        return self._read and self._stream.isatty()

    def _gone(self) -> None:
        self._read = False
        # What is still buffered for the broken stream must not fail the
        # interpreter's own last flush either.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, self._stream.fileno())
        os.close(devnull)


class NamedPrinter(Printer):
    """honcho's printer; on a terminal without its own clock before each
    line (`12:00:01 claims | ...` becomes `claims | ...`): the services'
    console lines carry their time already. With `json_lines` (the services
    print JSON: make run's output is read by a program), one JSON object a
    line and nothing before it, so a log collector reads every line: a
    service's own as it printed it (it names its service), anything else
    (honcho's, a stand-in's) wrapped with the process's name."""

    def __init__(self, *args, json_lines: bool = False, **kwargs) -> None:  # type: ignore[no-untyped-def]
        super().__init__(*args, **kwargs)
        self.json_lines = json_lines

    def write(self, message) -> None:  # type: ignore[no-untyped-def]
        if self.json_lines:
            for line in _text(message).splitlines():
                print(_as_json(message.name or "", line), file=self.output, flush=True)
            return
        if not (self.prefix and self._colours_supported):
            super().write(message)
            return
        name = (message.name or "").ljust(self.width)
        text = _text(message)
        prefix = f"{name} | "
        if self.colour and message.colour:
            prefix = f"\033[0m\033[{message.colour}m{prefix}\033[0m"
        for line in text.splitlines():
            print(prefix + line, file=self.output, flush=True)

    def announce(self, text: str, *, level: str = "info", **fields: object) -> None:
        """A line of the supervisor's own, under honcho's name for its
        lines; for a collector with its level (a restart is a warning) and
        `fields` (which process, how it ended) beside the sentence."""
        if self.json_lines:
            event = {"service": SYSTEM, "event": text, "level": level, **fields}
            print(json.dumps(event), file=self.output, flush=True)
            return
        now = datetime.datetime.now()
        self.write(Message(type="line", data=text, time=now, name=SYSTEM, colour=None))


def _text(message) -> str:  # type: ignore[no-untyped-def]
    text = message.data
    return text.decode("utf-8", "replace") if isinstance(text, bytes) else text


def _as_json(name: str, line: str) -> str:
    if line.startswith("{"):
        try:
            if isinstance(json.loads(line), dict):
                return line
        except ValueError:
            pass
    return json.dumps({"service": name, "event": line, "level": "info"})
