"""The log redactor: sensitive keys and card numbers never reach a log line."""

import io
import json

from nodkit.logging import configure_logging, get_logger
from nodkit.redaction import REDACTED, redact_value


def test_card_numbers_are_masked_but_ids_are_not():
    assert redact_value("paid with 4111 1111 1111 1111.") == "paid with [redacted-number]."
    assert redact_value("4242-4242-4242-4242") == "[redacted-number]"
    request_id = "21fcbb73423423423423fe789d491f2"
    assert redact_value(request_id) == request_id
    uuid_like = "12345678-1234-1234-1234-123456789012"
    assert redact_value(uuid_like) == uuid_like


def test_a_log_line_with_secrets_in_it_comes_out_redacted(log_tee):
    stream = io.StringIO()
    configure_logging("unit", stream=stream)
    try:
        get_logger("unit").info(
            "oops.logged_a_request",
            fields={"password": "pw-canary"},
            credentials={"token": "tok-canary"},
            note="card 4111111111111111",
            password="pw-canary-2",
        )
        line = json.loads(stream.getvalue().strip().splitlines()[-1])
    finally:
        configure_logging("test", stream=log_tee)  # as the session had it
    assert line["fields"] == REDACTED and line["credentials"] == REDACTED
    assert line["password"] == REDACTED
    assert line["note"] == "card [redacted-number]"
    assert "canary" not in json.dumps(line)
