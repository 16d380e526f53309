"""Apps are reached on public addresses only (DESIGN.md section 4): webhook
URLs and SMTP hosts on loopback, link-local, private, unique-local,
unspecified, multicast or other special addresses, in any spelling, are
refused when the account is connected and again at the moment of sending,
against the address actually connected to, unless
NOD_APPROVALS_ALLOWED_NETWORKS allows their network."""

import grpc
import pytest
from pydantic import ValidationError

from nod.approvals.v1 import approvals_pb2 as pb
from nod_approvals.settings import ApprovalsSettings
from nodtest.mail import SmtpServer, SmtpStandIn, smtp_controller
from nodtest.rpc import expect_error

from .support import (
    connect_smtp,
    connect_webhook,
    decide,
    email_parameters,
    propose,
    snapshot,
)

REFUSED_URLS = [
    ("http://127.0.0.1:8080/hooks/orders", "loopback"),
    ("http://localhost/hooks/orders", "loopback"),
    ("http://2130706433/hooks/orders", "loopback"),  # 127.0.0.1 as one decimal number
    ("http://0x7f.1/hooks/orders", "loopback"),
    ("http://[::1]/hooks/orders", "loopback"),
    ("http://[::ffff:127.0.0.1]/", "loopback"),
    ("http://169.254.169.254/latest/meta-data/", "link-local"),  # cloud metadata
    ("http://[::ffff:169.254.169.254]/latest/meta-data/", "link-local"),
    ("http://2852039166/latest/meta-data/", "link-local"),  # 169.254.169.254, decimal
    ("http://[64:ff9b::a9fe:a9fe]/", "link-local"),  # the same through NAT64
    ("http://[2002:a9fe:a9fe::1]/", "link-local"),  # the same through 6to4
    ("https://[fe80::1]/", "link-local"),
    ("http://10.1.2.3/", "private"),
    ("http://172.16.0.1/", "private"),
    ("https://192.168.1.1:8443/hook", "private"),
    ("http://[fd12:3456::1]/", "private"),  # unique-local
    ("http://100.64.0.1/", "special-purpose"),  # shared (carrier-grade NAT) space
    ("http://0.0.0.0:8080/", "unspecified"),
    ("http://[::]/", "unspecified"),
    ("http://224.0.0.1/", "multicast"),
    ("http://[ff02::1]/", "multicast"),
    ("https://hooks.example/orders", "does not resolve"),
]
REFUSED_MAIL_HOSTS = [
    ("127.0.0.1", "loopback"),
    ("localhost", "loopback"),
    ("[::1]", "loopback"),
    ("169.254.169.254", "link-local"),
    ("::ffff:169.254.169.254", "link-local"),
    ("10.0.0.25", "private"),
    ("mail.example", "does not resolve"),
]


def webhook(url: str) -> pb.Account:
    return pb.Account(app="webhook", label="hook", settings={"url": url})


def mail(host: str) -> pb.Account:
    settings = {"host": host, "port": "587", "from": "ada@work.example"}
    return pb.Account(app="smtp", label="mail", settings=settings)


@pytest.mark.parametrize(
    ("account", "field", "said"),
    [(webhook(url), "account.settings.url", said) for url, said in REFUSED_URLS]
    + [(mail(host), "account.settings.host", said) for host, said in REFUSED_MAIL_HOSTS],
)
async def test_accounts_on_addresses_nod_must_not_reach_are_refused(
    strict_approvals, as_person, db, account, field, said
):
    before = await snapshot(db)

    error = await expect_error(
        strict_approvals.stub.ConnectAccount(
            pb.ConnectAccountRequest(account=account), metadata=as_person
        ),
        grpc.StatusCode.INVALID_ARGUMENT,
        field=field,
    )

    assert said in error.message
    assert await snapshot(db) == before


async def test_the_allowed_networks_let_through_exactly_those_networks(
    approvals_stub, as_person, webhook_app
):
    # The session's server allows 127.0.0.0/8 for the stand-ins, nothing else.
    port = webhook_app.url.rsplit(":", 1)[1]
    allowed = await connect_webhook(approvals_stub, as_person, webhook_app.hook_url())
    mapped = await connect_webhook(
        approvals_stub, as_person, f"http://[::ffff:127.0.0.2]:{port}/hooks/orders"
    )

    assert allowed.connected and mapped.connected
    for url in (f"http://[::1]:{port}/hooks/orders", "http://169.254.169.254/"):
        await expect_error(
            approvals_stub.ConnectAccount(
                pb.ConnectAccountRequest(account=webhook(url)), metadata=as_person
            ),
            grpc.StatusCode.INVALID_ARGUMENT,
            field="account.settings.url",
        )


async def test_a_webhook_is_checked_again_when_sent_and_nothing_goes_out(
    approvals_stub, strict_approvals, as_person, webhook_app
):
    # Connected where loopback was allowed; the yes runs where it is not.
    account = await connect_webhook(approvals_stub, as_person, webhook_app.hook_url())
    approval = await propose(approvals_stub, as_person, account, {"ref": 1})

    decided = await decide(strict_approvals.stub, as_person, approval.id)

    assert decided.execution_state == pb.EXECUTION_STATE_NOT_RUN
    assert "not allowed" in decided.reason and "loopback" in decided.reason
    assert "nothing was sent" in decided.reason
    assert webhook_app.state.received == []


async def test_an_email_is_checked_again_when_sent_and_nothing_goes_out(
    approvals_stub, strict_approvals, as_person, smtp_server
):
    account = await connect_smtp(approvals_stub, as_person, smtp_server.port)
    approval = await propose(approvals_stub, as_person, account, email_parameters())

    decided = await decide(strict_approvals.stub, as_person, approval.id)

    assert decided.execution_state == pb.EXECUTION_STATE_NOT_RUN
    assert "not allowed" in decided.reason and "loopback" in decided.reason
    assert smtp_server.handler.messages == []


async def test_a_pinned_webhook_keeps_the_urls_name_in_its_host_header(
    approvals_factory, as_person, recording_app
):
    # Wherever localhost resolves (127.0.0.1, and on some hosts ::1 too).
    server = await approvals_factory("approvals-localhost", allowed_networks="127.0.0.0/8,::1/128")
    port = recording_app.url.rsplit(":", 1)[1]
    account = await connect_webhook(server.stub, as_person, f"http://localhost:{port}/hooks/x")
    approval = await propose(server.stub, as_person, account, {"ref": 1})

    decided = await decide(server.stub, as_person, approval.id)

    assert decided.execution_state == pb.EXECUTION_STATE_DONE
    assert recording_app.received == [{"path": "/hooks/x", "host": f"localhost:{port}"}]


async def test_a_pinned_mail_server_is_verified_by_the_hosts_name(
    approvals_factory, as_person, smtp_tls_material
):
    # A certificate for the name only: verifying it against the address
    # connected to (127.0.0.1) would refuse it.
    handler = SmtpStandIn()
    controller = smtp_controller(
        handler, tls_context=smtp_tls_material.server_context("localhost"), require_starttls=True
    )
    server = await approvals_factory(
        "approvals-mail-by-name",
        allowed_networks="127.0.0.0/8,::1/128",
        smtp_ca_file=str(smtp_tls_material.ca),
    )
    try:
        smtp = SmtpServer(controller.port, handler)
        account = await connect_smtp(server.stub, as_person, smtp.port, host="localhost")
        approval = await propose(server.stub, as_person, account, email_parameters())

        decided = await decide(server.stub, as_person, approval.id)
    finally:
        controller.stop()

    assert decided.execution_state == pb.EXECUTION_STATE_DONE, decided.reason
    [message] = handler.messages
    assert message["tls"]


async def test_a_redirect_is_an_answer_and_never_followed(
    approvals_stub, as_person, recording_app, webhook_app
):
    recording_app.redirect_to = webhook_app.hook_url("elsewhere")
    account = await connect_webhook(approvals_stub, as_person, f"{recording_app.url}/hooks/a")
    approval = await propose(approvals_stub, as_person, account, {"ref": 1})

    decided = await decide(approvals_stub, as_person, approval.id)

    assert decided.execution_state == pb.EXECUTION_STATE_UNCERTAIN
    assert "HTTP 307" in decided.reason
    assert len(recording_app.received) == 1
    assert webhook_app.state.received == []


def test_allowed_networks_come_from_the_environment_as_cidrs(monkeypatch, vault_key):
    monkeypatch.setenv("NOD_SERVICE_TOKEN", "t")
    monkeypatch.setenv("NOD_VAULT_KEY", vault_key)
    monkeypatch.setenv("NOD_APPROVALS_ALLOWED_NETWORKS", "127.0.0.0/8, ::1/128")
    assert [str(n) for n in ApprovalsSettings().allowed_networks] == ["127.0.0.0/8", "::1/128"]

    monkeypatch.delenv("NOD_APPROVALS_ALLOWED_NETWORKS")
    assert ApprovalsSettings().allowed_networks == ()

    monkeypatch.setenv("NOD_APPROVALS_ALLOWED_NETWORKS", "10.0.0.1/8")  # host bits: a mistake
    with pytest.raises(ValidationError):
        ApprovalsSettings()
