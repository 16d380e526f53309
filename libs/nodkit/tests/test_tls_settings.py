"""The TLS settings every service shares, read as a deployment sets them:
all three files or none, mutual TLS before tokens can be turned off, and a
certificate that names the service it is mounted for."""

import pytest
from pydantic import SecretStr, ValidationError

from nodkit.client import call_metadata
from nodkit.settings import ServiceSettings
from nodkit.tls import certificate_names, server_name_override


def test_tls_is_off_by_default_and_services_listen_on_loopback(monkeypatch):
    monkeypatch.setenv("NOD_SERVICE_TOKEN", "t")
    settings = ServiceSettings()
    assert settings.tls() is None
    assert settings.listen.startswith("127.0.0.1:")


def test_the_settings_are_read_from_the_shared_names(monkeypatch, tls_authority):
    claims = tls_authority.issue("claims")
    for name, value in claims.env(require_client_cert=True, accept_tokens=False).items():
        monkeypatch.setenv(name, value)
    settings = ServiceSettings()  # no token needed: the certificate names the caller
    tls = settings.tls()
    assert tls is not None and tls.require_client_cert
    assert tls.ca == claims.ca_file.read_bytes()
    assert settings.own_token("claims") is None


def test_half_a_tls_setting_is_refused(tls_authority):
    claims = tls_authority.issue("claims")
    with pytest.raises(ValidationError, match="together"):
        ServiceSettings(service_token=SecretStr("t"), tls_cert_file=str(claims.cert_file))
    with pytest.raises(ValidationError, match="NOD_TLS_REQUIRE_CLIENT_CERT needs"):
        ServiceSettings(service_token=SecretStr("t"), tls_require_client_cert=True)
    with pytest.raises(ValidationError, match="NOD_TLS_ACCEPT_TOKENS=false needs"):
        ServiceSettings(
            service_token=SecretStr("t"),
            **claims.settings(require_client_cert=False, accept_tokens=False),
        )
    # Without mutual TLS a token is the only way to be told apart.
    with pytest.raises(ValidationError, match="NOD_SERVICE_TOKEN"):
        ServiceSettings(**claims.settings(require_client_cert=False))


def test_a_missing_file_is_named(tls_authority, tmp_path):
    claims = tls_authority.issue("claims")
    settings = ServiceSettings(
        service_token=SecretStr("t"),
        **{**claims.settings(), "tls_key_file": str(tmp_path / "nowhere.pem")},
    )
    with pytest.raises(ValueError, match="NOD_TLS_KEY_FILE: cannot read"):
        settings.tls()


def test_a_certificate_must_name_its_service_twice(tls_authority):
    assert certificate_names(tls_authority.issue("claims").cert_file.read_bytes()).dns == {"claims"}
    tls_authority.issue("claims").tls().check_names("claims")
    for wrong in (
        tls_authority.issue("tasks"),  # another service's
        tls_authority.issue("claims", dns=("claims.nod.svc.cluster.local",)),  # CN only
    ):
        with pytest.raises(ValueError, match="must name the claims service"):
            wrong.tls().check_names("claims")


def test_a_client_checks_the_service_it_meant_whatever_the_address():
    assert server_name_override("claims:50051", "claims") is None
    assert server_name_override("127.0.0.1:50051", "claims") == "claims"
    assert server_name_override("claims.nod.svc.cluster.local:50051", "claims") == "claims"
    assert server_name_override("127.0.0.1:50051", None) is None


def test_without_a_token_the_metadata_carries_none():
    assert call_metadata(None, "ada") == (("x-nod-user", "ada"),)
