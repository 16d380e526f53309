"""The smtp app: a yes really delivers one email through the account's mail
server; the server's answer decides the end."""

import pytest

from nod.approvals.v1 import approvals_pb2 as pb

from .support import connect_smtp, decide, email_parameters, propose


async def test_an_approved_email_is_delivered_once(approvals_stub, as_person, smtp_server):
    mail = await connect_smtp(approvals_stub, as_person, smtp_server.port)
    parameters = email_parameters(to=["grace@example.com", "alan@example.com"])
    approval = await propose(approvals_stub, as_person, mail, parameters)

    decided = await decide(approvals_stub, as_person, approval.id)
    again = await decide(approvals_stub, as_person, approval.id)

    assert decided.execution_state == pb.EXECUTION_STATE_DONE
    assert "accepted for grace@example.com, alan@example.com" in decided.result
    assert again == decided
    [message] = smtp_server.handler.messages
    assert message["from"] == "ada@work.example"
    assert message["to"] == ["grace@example.com", "alan@example.com"]
    assert message["subject"] == "Quarterly numbers"
    assert message["body"].replace("\r\n", "\n").strip() == parameters["body"]
    assert message["message_id"] == f"<{decided.execution_id}@nod-approvals>"


async def test_starttls_and_login_when_the_server_offers_them(
    approvals_stub, as_person, smtp_tls_server
):
    mail = await connect_smtp(approvals_stub, as_person, smtp_tls_server.port, login=True)
    approval = await propose(approvals_stub, as_person, mail, email_parameters())

    decided = await decide(approvals_stub, as_person, approval.id)

    assert decided.execution_state == pb.EXECUTION_STATE_DONE
    [message] = smtp_tls_server.handler.messages
    assert message["tls"] and message["subject"] == "Quarterly numbers"
    assert smtp_tls_server.handler.logins == [("nod-mailer", True)]


async def test_a_password_is_never_sent_without_tls(approvals_stub, as_person, smtp_server):
    mail = await connect_smtp(approvals_stub, as_person, smtp_server.port, login=True)
    approval = await propose(approvals_stub, as_person, mail, email_parameters())

    decided = await decide(approvals_stub, as_person, approval.id)

    assert decided.execution_state == pb.EXECUTION_STATE_NOT_RUN
    assert "no STARTTLS" in decided.reason
    assert smtp_server.handler.messages == []


async def test_an_untrusted_mail_server_certificate_sends_nothing(
    approvals_factory, as_person, smtp_tls_server
):
    server = await approvals_factory("approvals-no-test-ca")  # does not trust the test CA
    mail = await connect_smtp(server.stub, as_person, smtp_tls_server.port, login=True)
    approval = await propose(server.stub, as_person, mail, email_parameters())

    decided = await decide(server.stub, as_person, approval.id)

    assert decided.execution_state == pb.EXECUTION_STATE_NOT_RUN
    assert "nothing was sent" in decided.reason
    assert smtp_tls_server.handler.messages == smtp_tls_server.handler.logins == []


@pytest.mark.parametrize(
    ("mode", "state", "said"),
    [
        ("reject", pb.EXECUTION_STATE_FAILED, "554"),
        ("transient", pb.EXECUTION_STATE_UNCERTAIN, "451"),
        ("drop", pb.EXECUTION_STATE_UNCERTAIN, "broke while sending"),
    ],
)
async def test_the_mail_servers_answer_decides_the_end(
    approvals_stub, as_person, smtp_server, mode, state, said
):
    smtp_server.handler.mode = mode
    mail = await connect_smtp(approvals_stub, as_person, smtp_server.port)
    approval = await propose(approvals_stub, as_person, mail, email_parameters())

    decided = await decide(approvals_stub, as_person, approval.id)
    again = await decide(approvals_stub, as_person, approval.id)

    assert decided.execution_state == state
    assert said in decided.reason
    assert again.execution_state == state
    assert len(smtp_server.handler.messages) == 1
