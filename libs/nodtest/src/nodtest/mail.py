"""A local SMTP server standing in for a mail provider (aiosmtpd), counting
every message it receives, with a throwaway CA for the STARTTLS variant."""

import datetime
import email
import ipaddress
import logging
import pathlib
import ssl
from dataclasses import dataclass, field

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from nodtest.processes import free_port

# aiosmtpd narrates every connection at INFO; the tests read what it received.
logging.getLogger("mail.log").setLevel(logging.WARNING)

CANARY_SMTP_PASSWORD = "canary-smtp-pw-W4n8Kd"
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
        self.messages.append(
            {
                "from": envelope.mail_from,
                "to": list(envelope.rcpt_tos),
                "subject": parsed["Subject"],
                "message_id": parsed["Message-ID"],
                "body": parsed.get_payload(decode=True).decode(),
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


def _smtp_controller(handler: SmtpStandIn, **options):
    from aiosmtpd.controller import Controller

    controller = Controller(handler, hostname="127.0.0.1", port=free_port(), **options)
    controller.start()
    return controller


@pytest.fixture
def smtp_server():
    """A plain local SMTP server (no STARTTLS, no AUTH)."""
    handler = SmtpStandIn()
    controller = _smtp_controller(handler)
    yield SmtpServer(controller.port, handler)
    controller.stop()


@dataclass(frozen=True)
class TlsMaterial:
    ca: pathlib.Path
    cert: pathlib.Path
    key: pathlib.Path

    def server_context(self) -> ssl.SSLContext:
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(self.cert, self.key)
        return context


def _certificate(subject, issuer, public_key, signing_key, extensions):
    now = datetime.datetime.now(datetime.UTC)
    builder = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(issuer)
        .public_key(public_key)
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(hours=1))
        .not_valid_after(now + datetime.timedelta(days=2))
    )
    for extension, critical in extensions:
        builder = builder.add_extension(extension, critical=critical)
    return builder.sign(signing_key, hashes.SHA256())


def make_tls_material(directory: pathlib.Path, host: str) -> TlsMaterial:
    """A throwaway CA and a server certificate for `host` (an IP address)."""
    ca_key, key = ec.generate_private_key(ec.SECP256R1()), ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "nod test CA")])
    ca_usage = x509.KeyUsage(False, False, False, False, False, True, True, False, False)
    ca = _certificate(
        ca_name,
        ca_name,
        ca_key.public_key(),
        ca_key,
        [
            (x509.BasicConstraints(ca=True, path_length=0), True),
            (ca_usage, True),
            (x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()), False),
        ],
    )
    cert = _certificate(
        x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, host)]),
        ca_name,
        key.public_key(),
        ca_key,
        [
            (x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address(host))]), False),
            (x509.BasicConstraints(ca=False, path_length=None), True),
            (x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), False),
            (x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), False),
        ],
    )
    material = TlsMaterial(directory / "ca.pem", directory / "cert.pem", directory / "key.pem")
    material.ca.write_bytes(ca.public_bytes(serialization.Encoding.PEM))
    material.cert.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    material.key.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return material


@pytest.fixture(scope="session")
def smtp_tls_material(tmp_path_factory) -> TlsMaterial:
    return make_tls_material(tmp_path_factory.mktemp("smtp-tls"), "127.0.0.1")


@pytest.fixture
def smtp_tls_server(smtp_tls_material):
    """A local SMTP server that offers STARTTLS (a test CA's certificate the
    session's approvals server trusts) and AUTH only over TLS."""
    handler = SmtpStandIn()
    controller = _smtp_controller(
        handler,
        tls_context=smtp_tls_material.server_context(),
        require_starttls=True,
        authenticator=handler.authenticate,
        auth_require_tls=True,
    )
    yield SmtpServer(controller.port, handler)
    controller.stop()
