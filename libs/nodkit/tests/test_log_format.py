"""What a service's log looks like where it is read: aligned, coloured lines
on a terminal, one JSON object a line on a pipe, and no private value in
either (the redactor runs before the console renderer too)."""

import json
import os
import pty
import re
import subprocess
import sys

import pytest

# A process that logs as a service does (its settings from NOD_*): nod's
# own logger, a standard library logger and an exception, each with a
# private value in it.
LOGS_SOMETHING_PRIVATE = """
import logging
import sys
from nodkit.logging import configure_logging, get_logger
from nodkit.settings import ServiceSettings

settings = ServiceSettings(service_token="t")
chosen = configure_logging("unit", fmt=settings.log_format, color=settings.log_color)
log = get_logger("unit")
log.info("server.serving", service="unit", address="127.0.0.1:7001", version="9.9", tls="off")
log.info("card.used", password="pw-canary", note="card 4111 1111 1111 1111")
logging.getLogger("stdlib").warning("paid with 4242424242424242")
try:
    raise RuntimeError("declined 5555555555554444")
except RuntimeError as error:
    log.error("card.declined", exc_info=error, credentials={"token": "tok-canary"})
print("chosen:", chosen.value, file=sys.stderr, flush=True)  # after the logs, as they go
"""
CANARIES = ("pw-canary", "tok-canary", "4111", "4242424242424242", "5555555555554444")
ANSI = re.compile(r"\x1b\[[0-9;]*m")


def env(**settings: str) -> dict[str, str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith("NOD_LOG_")}
    return {**base, **settings}


def on_a_terminal(**settings: str) -> str:
    """Everything the process printed to a pseudo-terminal as its stdout and stderr."""
    controller, terminal = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, "-c", LOGS_SOMETHING_PRIVATE],
        stdout=terminal,
        stderr=terminal,
        stdin=subprocess.DEVNULL,
        env=env(**settings),
    )
    os.close(terminal)
    chunks = []
    while True:
        try:
            chunk = os.read(controller, 65536)
        except OSError:  # EIO: every writer closed the terminal
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(controller)
    assert process.wait(timeout=60) == 0
    return b"".join(chunks).decode(errors="replace").replace("\r\n", "\n")


def on_a_pipe(**settings: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", LOGS_SOMETHING_PRIVATE],
        capture_output=True,
        text=True,
        env=env(**settings),
        timeout=60,
        check=True,
    )
    return done.stdout + done.stderr


def test_on_a_terminal_the_lines_are_for_a_person_and_hold_nothing_private():
    printed = on_a_terminal()
    assert "chosen: console" in printed
    assert ANSI.search(printed), "a terminal gets colours"
    plain = ANSI.sub("", printed)
    assert "{" + '"event"' not in plain
    assert "unit serving on 127.0.0.1:7001, version 9.9" in plain
    card_used = next(line for line in plain.splitlines() if "card.used" in line)
    assert re.match(r"\d\d:\d\d:\d\d \[info\s*\] card\.used", card_used), card_used
    assert "password=[redacted]" in card_used
    assert "card [redacted-number]" in card_used
    assert "paid with [redacted-number]" in plain
    assert "RuntimeError: declined [redacted-number]" in plain  # the traceback, redacted
    assert "credentials=[redacted]" in plain
    for canary in CANARIES:
        assert canary not in printed


def test_on_a_pipe_every_line_is_json_and_holds_nothing_private():
    printed = on_a_pipe()
    lines = printed.strip().splitlines()
    assert lines[-1] == "chosen: json"
    events = [json.loads(line) for line in lines[:-1]]
    assert [e["event"] for e in events] == [
        "server.serving",
        "card.used",
        "paid with [redacted-number]",
        "card.declined",
    ]
    assert all(e["service"] == "unit" and "timestamp" in e for e in events)
    assert events[0]["address"] == "127.0.0.1:7001" and events[0]["version"] == "9.9"
    assert events[1]["password"] == "[redacted]"
    assert "declined [redacted-number]" in events[3]["exception"]
    for canary in CANARIES:
        assert canary not in printed


@pytest.mark.parametrize("forced", ["json", "console"])
def test_a_forced_format_is_kept_wherever_the_output_goes(forced):
    assert f"chosen: {forced}" in on_a_terminal(NOD_LOG_FORMAT=forced)
    assert f"chosen: {forced}" in on_a_pipe(NOD_LOG_FORMAT=forced)


def test_console_lines_on_a_pipe_have_colours_only_when_asked():
    assert not ANSI.search(on_a_pipe(NOD_LOG_FORMAT="console"))
    assert ANSI.search(on_a_pipe(NOD_LOG_FORMAT="console", NOD_LOG_COLOR="always"))
    assert not ANSI.search(on_a_terminal(NOD_LOG_COLOR="never"))
