"""Certificates for the TLS tests: a throwaway CA (trustme) that issues each
service its certificate as docs/SECURITY.md asks for one (subject CN and a
DNS name: the service's name), written to files as a deployment mounts them.

`tls_authority` is the one CA a test's services trust; `other_authority`
is a CA nobody trusts, for the certificates that must be refused."""

import pathlib
import uuid
from dataclasses import dataclass

import pytest
import trustme

from nodkit.tls import Tls


@dataclass(frozen=True)
class ServiceCertificate:
    name: str
    cert_file: pathlib.Path
    key_file: pathlib.Path
    ca_file: pathlib.Path

    def settings(self, *, require_client_cert: bool = True, accept_tokens: bool = True) -> dict:
        """Keyword settings for a service's Settings class."""
        return {
            "tls_cert_file": str(self.cert_file),
            "tls_key_file": str(self.key_file),
            "tls_ca_file": str(self.ca_file),
            "tls_require_client_cert": require_client_cert,
            "tls_accept_tokens": accept_tokens,
        }

    def env(self, *, require_client_cert: bool = True, accept_tokens: bool = True) -> dict:
        """The same, as a service process's environment."""
        return {
            "NOD_TLS_CERT_FILE": str(self.cert_file),
            "NOD_TLS_KEY_FILE": str(self.key_file),
            "NOD_TLS_CA_FILE": str(self.ca_file),
            "NOD_TLS_REQUIRE_CLIENT_CERT": str(require_client_cert).lower(),
            "NOD_TLS_ACCEPT_TOKENS": str(accept_tokens).lower(),
        }

    def tls(self) -> Tls:
        """The material a client presenting this certificate dials with."""
        return Tls.from_files(str(self.cert_file), str(self.key_file), str(self.ca_file))


class TestAuthority:
    """A CA whose certificates are written under `directory`."""

    __test__ = False  # not a test class, whatever its name says

    def __init__(self, directory: pathlib.Path) -> None:
        self.directory = directory
        self.ca = trustme.CA(organization_name="nod test CA")
        self.ca_file = directory / "ca.pem"
        self.ca.cert_pem.write_to_path(str(self.ca_file))

    def issue(self, name: str, *, dns: tuple[str, ...] | None = None) -> ServiceCertificate:
        """`name`'s certificate: CN=name, DNS names `dns` (default: name)."""
        leaf = self.ca.issue_cert(*(dns if dns is not None else (name,)), common_name=name)
        # A file of its own each time: a server keeps reading the files it was given.
        stem = f"{name}-{uuid.uuid4().hex[:8]}"
        cert_file = self.directory / f"{stem}.pem"
        key_file = self.directory / f"{stem}-key.pem"
        leaf.cert_chain_pems[0].write_to_path(str(cert_file))
        leaf.private_key_pem.write_to_path(str(key_file))
        return ServiceCertificate(name, cert_file, key_file, self.ca_file)


@pytest.fixture(scope="session")
def tls_authority(tmp_path_factory) -> TestAuthority:
    return TestAuthority(tmp_path_factory.mktemp("tls-ca"))


@pytest.fixture(scope="session")
def other_authority(tmp_path_factory) -> TestAuthority:
    return TestAuthority(tmp_path_factory.mktemp("tls-other-ca"))
