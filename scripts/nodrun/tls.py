"""`NOD_RUN_TLS=1 make run`: every gRPC hop over mutual TLS, as a deployment
runs it (docs/SECURITY.md), with a CA of make run's own under var/tls/.

Each service and the gateway gets a certificate naming it (subject CN and a
DNS name), made once and kept; `make clean` removes them with var/. The CA
signs nothing else and its key stays in var/tls/ (mode 0600), so trusting
it trusts this machine's make run only. The set-up script (ready.py) seeds
the demo person with the gateway's certificate, the caller whose calls
seeding makes.

Own code rather than shelling out to openssl: `cryptography` is already
installed (the vault uses it) and behaves the same on every machine."""

import datetime
import os
import pathlib

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

VALID_FOR = datetime.timedelta(days=365)


def enabled() -> bool:
    return os.environ.get("NOD_RUN_TLS", "").lower() in ("1", "true", "yes")


def env_for(var: pathlib.Path, name: str) -> dict[str, str]:
    """The NOD_TLS_* settings of `name`'s process: its own certificate,
    mutual TLS required, tokens still accepted beside it (scripts keep
    presenting the single token)."""
    directory = var / "tls"
    return {
        "NOD_TLS_CERT_FILE": str(directory / f"{name}.pem"),
        "NOD_TLS_KEY_FILE": str(directory / f"{name}-key.pem"),
        "NOD_TLS_CA_FILE": str(directory / "ca.pem"),
        "NOD_TLS_REQUIRE_CLIENT_CERT": "true",
    }


def ensure_certificates(var: pathlib.Path, names: list[str]) -> None:
    """The CA and one certificate per name under var/tls/, made if missing."""
    directory = var / "tls"
    directory.mkdir(parents=True, exist_ok=True)
    if not (directory / "ca.pem").exists():
        new_key = ec.generate_private_key(ec.SECP256R1())
        _write_key(directory / "ca-key.pem", new_key)
        _write_cert(directory / "ca.pem", _authority(new_key))
        for stale in directory.glob("*.pem"):
            if stale.name not in ("ca.pem", "ca-key.pem"):
                stale.unlink()  # issued by a CA that is gone
    ca_key = _read_key(directory / "ca-key.pem")
    ca = x509.load_pem_x509_certificate((directory / "ca.pem").read_bytes())
    for name in names:
        if not (directory / f"{name}.pem").exists():
            key = ec.generate_private_key(ec.SECP256R1())
            _write_key(directory / f"{name}-key.pem", key)
            _write_cert(directory / f"{name}.pem", _leaf(name, key, ca, ca_key))


def _builder(subject: x509.Name, issuer: x509.Name, public_key) -> x509.CertificateBuilder:
    now = datetime.datetime.now(datetime.UTC)
    return (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(issuer)
        .public_key(public_key)
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(hours=1))
        .not_valid_after(now + VALID_FOR)
    )


def _authority(key: ec.EllipticCurvePrivateKey) -> x509.Certificate:
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "nod make run CA")])
    return (
        _builder(name, name, key.public_key())
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(_usage(certificates=True), critical=True)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
        .sign(key, hashes.SHA256())
    )


def _leaf(name: str, key, ca: x509.Certificate, ca_key) -> x509.Certificate:
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
    usages = [ExtendedKeyUsageOID.SERVER_AUTH, ExtendedKeyUsageOID.CLIENT_AUTH]
    return (
        _builder(subject, ca.subject, key.public_key())
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(_usage(certificates=False), critical=True)
        .add_extension(x509.ExtendedKeyUsage(usages), critical=False)
        .add_extension(x509.SubjectAlternativeName([x509.DNSName(name)]), critical=False)
        .add_extension(
            x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), critical=False
        )
        .sign(ca_key, hashes.SHA256())
    )


def _usage(*, certificates: bool) -> x509.KeyUsage:
    return x509.KeyUsage(
        digital_signature=not certificates,
        content_commitment=False,
        key_encipherment=False,
        data_encipherment=False,
        key_agreement=False,
        key_cert_sign=certificates,
        crl_sign=certificates,
        encipher_only=False,
        decipher_only=False,
    )


def _write_key(path: pathlib.Path, key: ec.EllipticCurvePrivateKey) -> None:
    pem = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "wb") as file:
        file.write(pem)


def _read_key(path: pathlib.Path):
    return serialization.load_pem_private_key(path.read_bytes(), password=None)


def _write_cert(path: pathlib.Path, cert: x509.Certificate) -> None:
    path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
