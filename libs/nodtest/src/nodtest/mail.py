"""A local SMTP server standing in for a mail provider (aiosmtpd), counting
every message it receives, with a throwaway CA (trustme) for the STARTTLS
variant."""

import email
import logging
import pathlib
import ssl
from dataclasses import dataclass, field

import pytest
import trustme

from nodtest.canaries import register
from nodtest.processes import free_port

# aiosmtpd narrates every connection at INFO; the tests read what it received.
logging.getLogger("mail.log").setLevel(logging.WARNING)

CANARY_SMTP_PASSWORD = register("canary-smtp-pw-W4n8Kd", "mail password")
SMTP_USERNAME = "nod-mailer"


@dataclass
class SmtpStandIn:
    """aiosmtpd handler that keeps every message it receives, including the
    ones it then refuses or drops, and answers DATA as `mode` says."""

    mode: str = "ok"  # ok | reject (554) | transient (451) | drop
    messages: list[dict] = field(default_factory=list)
    logins: list[tuple[str, bool]] = field(default_factory=list)

    async def handle_DATA(self, server, session, envelope):
        parsed = email.message_from_bytes(envelope.original_content or envelope.content)
        body = parsed.get_payload(decode=True)  # a single-part message: its bytes
        assert isinstance(body, bytes)
        self.messages.append(
            {
                "from": envelope.mail_from,
                "to": list(envelope.rcpt_tos),
                "subject": parsed["Subject"],
                "message_id": parsed["Message-ID"],
                "body": body.decode(),
                "tls": session.ssl is not None,
            }
        )
        if self.mode == "reject":
            return "554 5.7.1 message refused by the test server"
        if self.mode == "transient":
            return "451 4.3.0 try again later"
        if self.mode == "drop":
            server.transport.close()
            return "250 never heard"
        return "250 2.0.0 queued as test-1"

    def authenticate(self, server, session, envelope, mechanism, auth_data):
        from aiosmtpd.smtp import AuthResult

        ok = auth_data.login.decode() == SMTP_USERNAME and (
            auth_data.password.decode() == CANARY_SMTP_PASSWORD
        )
        self.logins.append((auth_data.login.decode(), ok))
        return AuthResult(success=ok)


@dataclass
class SmtpServer:
    port: int
    handler: SmtpStandIn


def smtp_controller(handler: SmtpStandIn, **options):
    """A started aiosmtpd controller on 127.0.0.1 and a free port; stop() it."""
    from aiosmtpd.controller import Controller

    controller = Controller(handler, hostname="127.0.0.1", port=free_port(), **options)
    controller.start()
    return controller


@pytest.fixture
def smtp_server():
    """A plain local SMTP server (no STARTTLS, no AUTH)."""
    handler = SmtpStandIn()
    controller = smtp_controller(handler)
    yield SmtpServer(controller.port, handler)
    controller.stop()


@dataclass(frozen=True)
class TlsMaterial:
    """A throwaway CA: clients trust the file `ca`; servers get certificates from it."""

    authority: trustme.CA
    ca: pathlib.Path

    def server_context(self, *names: str) -> ssl.SSLContext:
        """A server's context with a certificate for `names` (default: 127.0.0.1)."""
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        self.authority.issue_cert(*(names or ("127.0.0.1",))).configure_cert(context)
        return context


@pytest.fixture(scope="session")
def smtp_tls_material(tmp_path_factory) -> TlsMaterial:
    authority = trustme.CA()
    ca = tmp_path_factory.mktemp("smtp-tls") / "ca.pem"
    authority.cert_pem.write_to_path(str(ca))
    return TlsMaterial(authority, ca)


@pytest.fixture
def smtp_tls_server(smtp_tls_material):
    """A local SMTP server that offers STARTTLS (a test CA's certificate the
    session's approvals server trusts) and AUTH only over TLS."""
    handler = SmtpStandIn()
    controller = smtp_controller(
        handler,
        tls_context=smtp_tls_material.server_context(),
        require_starttls=True,
        authenticator=handler.authenticate,
        auth_require_tls=True,
    )
    yield SmtpServer(controller.port, handler)
    controller.stop()
