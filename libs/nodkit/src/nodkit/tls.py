"""TLS on every gRPC hop, from three files: this service's certificate, its
key, and the CA that issued every nod service's (docs/SECURITY.md).

One certificate per service names it twice: its subject CN is how a server
knows which service is calling (mutual TLS: the allow-list in
nodkit.callers is checked against it), and a DNS subject alternative name
is how a client knows it reached the service it meant (a client checks
that name whatever address it dialled). The same certificate serves and is
presented as the service's client certificate, so the one setting switches
both ends together.

Own code rather than a library: grpc's credentials take PEM bytes; what is
nod's is which names a certificate must carry and where the caller's name
is read from.
"""

import pathlib
from dataclasses import dataclass

import grpc
from cryptography import x509
from cryptography.x509.oid import NameOID

# The auth context property gRPC fills from a verified peer certificate.
_PEER_COMMON_NAME = "x509_common_name"


@dataclass(frozen=True, repr=False)
class Tls:
    """One service's TLS material, read once at start."""

    cert: bytes
    key: bytes
    ca: bytes
    # Mutual TLS: a caller without a certificate from the CA is refused at
    # the handshake, and its certificate names it.
    require_client_cert: bool = False

    @classmethod
    def from_files(
        cls, cert_file: str, key_file: str, ca_file: str, *, require_client_cert: bool = False
    ) -> "Tls":
        return cls(
            _read("NOD_TLS_CERT_FILE", cert_file),
            _read("NOD_TLS_KEY_FILE", key_file),
            _read("NOD_TLS_CA_FILE", ca_file),
            require_client_cert,
        )

    def check_names(self, service: str) -> None:
        """Refuses to start with another service's certificate: peers would
        take this one for that service, and its calls would be refused."""
        names = certificate_names(self.cert)
        if names.common_name != service or service not in names.dns:
            raise ValueError(
                f"NOD_TLS_CERT_FILE must name the {service} service in its subject CN and in a"
                f" DNS subject alternative name; it names CN={names.common_name!r},"
                f" DNS={sorted(names.dns)}"
            )

    def server_credentials(self) -> grpc.ServerCredentials:
        return grpc.ssl_server_credentials(
            [(self.key, self.cert)],
            root_certificates=self.ca,
            require_client_auth=self.require_client_cert,
        )

    def channel_credentials(self) -> grpc.ChannelCredentials:
        return grpc.ssl_channel_credentials(
            root_certificates=self.ca, private_key=self.key, certificate_chain=self.cert
        )


@dataclass(frozen=True)
class CertificateNames:
    common_name: str | None
    dns: frozenset[str]


def certificate_names(pem: bytes) -> CertificateNames:
    """The subject CN and DNS names of the first certificate in `pem`."""
    cert = x509.load_pem_x509_certificate(pem)
    common = cert.subject.get_attributes_for_oid(NameOID.COMMON_NAME)
    try:
        alternative = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName)
        dns = frozenset(alternative.value.get_values_for_type(x509.DNSName))
    except x509.ExtensionNotFound:
        dns = frozenset()
    return CertificateNames(str(common[0].value) if common else None, dns)


def server_name_override(address: str, service: str | None) -> str | None:
    """The name a client checks the server's certificate for, when the
    address doesn't carry it: a peer dialled as `claims:50051` is checked
    for `claims` as it is; one dialled as `127.0.0.1:50051` or by a longer
    DNS name is checked for `claims` all the same."""
    if service is None:
        return None
    host = address.rsplit(":", 1)[0] if ":" in address else address
    return None if host == service else service


def caller_certificate_name(call: grpc.aio.ServicerContext) -> str | None:
    """The CN of the caller's certificate, which the handshake verified
    against the CA; None on a connection without one."""
    names = call.auth_context().get(_PEER_COMMON_NAME)
    return next(iter(names)).decode() if names else None


def _read(setting: str, path: str) -> bytes:
    try:
        return pathlib.Path(path).read_bytes()
    except OSError as error:
        raise ValueError(f"{setting}: cannot read {path}: {error.strerror}") from None
