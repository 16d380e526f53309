"""Email nudges' settings and words, without the running system: a bad
setting is one line naming its variable; the email says what nod waits for
in fixed words, with the task page's link only when a public address is set."""

import pytest
from pydantic import ValidationError

from nod.tasks.v1 import tasks_pb2 as tasks
from nod_gateway.email_address import address_problem
from nod_gateway.nudges import message_for
from nod_gateway.settings import GatewaySettings
from nodkit import startup

SMTP = {"service_token": "t", "smtp_host": "smtp.example.com", "smtp_from": "nod@example.com"}


def problem(**values) -> str:
    with pytest.raises(ValidationError) as raised:
        GatewaySettings(**values)
    return startup.settings_problem(raised.value, GatewaySettings)


def test_nudges_are_off_without_an_smtp_host():
    assert not GatewaySettings(service_token="t").nudging
    assert GatewaySettings(**SMTP).nudging
    assert not GatewaySettings(**SMTP, nudges=False).nudging


@pytest.mark.parametrize(
    ("values", "named"),
    [
        ({**SMTP, "smtp_security": "plain"}, "NOD_GATEWAY_SMTP_SECURITY"),
        ({**SMTP, "smtp_security": "ssl"}, "NOD_GATEWAY_SMTP_SECURITY"),
        ({**SMTP, "smtp_from": ""}, "NOD_GATEWAY_SMTP_FROM"),
        ({**SMTP, "smtp_from": "nod@example.com\r\nBcc: x@y.example"}, "NOD_GATEWAY_SMTP_FROM"),
        ({**SMTP, "smtp_username": "nod"}, "NOD_GATEWAY_SMTP_PASSWORD"),
        ({**SMTP, "smtp_port": 0}, "NOD_GATEWAY_SMTP_PORT"),
        ({**SMTP, "nudge_delay_s": 0}, "NOD_GATEWAY_NUDGE_DELAY_S"),
        ({**SMTP, "public_url": "javascript:alert(1)"}, "NOD_GATEWAY_PUBLIC_URL"),
    ],
)
def test_a_bad_setting_is_one_line_naming_it(values, named):
    line = problem(**values)
    assert named in line and "\n" not in line, line


def test_plain_smtp_on_loopback_is_allowed():
    for host in ("127.0.0.1", "::1", "localhost"):
        assert GatewaySettings(**{**SMTP, "smtp_host": host, "smtp_security": "plain"}).nudging


@pytest.mark.parametrize(
    "address",
    ["", "a", "a@b", "a@@b.example", "a b@c.example", "a@b.example\n", "a\x00@b.example",
     "x" * 250 + "@b.example", ".a@b.example", "a@-b.example", "a@b_c.example"],
)  # fmt: skip
def test_bad_addresses_are_said_in_words(address):
    said = address_problem(address)
    assert said and said[0].isupper() and said.endswith("."), said


def test_good_addresses():
    for address in ("ada@example.com", "ada.lovelace+nod@mail.example.org", "zoë@exämple.de"):
        assert address_problem(address) is None, address


def waiting(kind, form_kind=tasks.FORM_KIND_UNSPECIFIED) -> tasks.Task:
    wait = tasks.Wait(kind=kind, id="w1", prompt="MODEL WORDS secret-ish", form_kind=form_kind)
    return tasks.Task(id="t1", state=tasks.TASK_STATE_WAITING, text="Buy", wait=wait)


def test_the_email_links_the_task_page_only_when_a_public_address_is_set():
    linked = GatewaySettings(**SMTP, public_url="https://nod.example/")
    body = message_for(linked, "ada@example.com", waiting(tasks.WAIT_KIND_PAYMENT)).get_content()
    assert "https://nod.example/tasks/t1\n" in body
    assert "yes or no before it pays" in body
    assert "MODEL WORDS" not in body
    unlinked = GatewaySettings(**SMTP)
    code = waiting(tasks.WAIT_KIND_PRIVATE_FORM, tasks.FORM_KIND_ONE_TIME_CODE)
    body = message_for(unlinked, "ada@example.com", code).get_content()
    assert "http" not in body and "no link" in body
    assert "a one-time code" in body
