"""How a caller is told apart (nodkit.callers.Callers.identify): by its
token, or under mutual TLS by its certificate, which a token can confirm but
never widen; with tokens not accepted, only the certificate counts."""

import pytest
from pydantic import SecretStr

from nodkit.callers import ALL, Callers
from nodkit.errors import Unauthenticated

SINGLE, BROWSER, GATEWAY = "single-token", "browser-token", "gateway-token"
CLAIM = "/nod.claims.v1.ClaimsService/Claim"


def callers(**options) -> Callers:
    return Callers(
        everything=SecretStr(SINGLE),
        services={"browser": SecretStr(BROWSER), "gateway": SecretStr(GATEWAY)},
        **options,
    )


def bearer(token: str) -> str:
    return f"Bearer {token}"


def reason_of(error: pytest.ExceptionInfo) -> str:
    return error.value.reason


def test_without_a_certificate_the_token_names_the_caller():
    known = callers()
    assert known.identify(bearer(BROWSER), None) == "browser"
    assert known.identify(bearer(SINGLE), None) == ALL
    for wrong in ("", bearer("made-up"), BROWSER):
        with pytest.raises(Unauthenticated) as refused:
            known.identify(wrong, None)
        assert reason_of(refused) == "BAD_SERVICE_TOKEN"


def test_a_certificate_names_the_caller_and_a_token_beside_it_must_agree():
    known = callers(certificates=True)
    assert known.identify("", "browser") == "browser"
    assert known.identify(bearer(BROWSER), "browser") == "browser"
    # The single token confirms any certificate, and widens none.
    assert known.identify(bearer(SINGLE), "gateway") == "gateway"
    assert not known.may_call(known.identify(bearer(SINGLE), "gateway"), CLAIM)
    with pytest.raises(Unauthenticated) as mismatch:
        known.identify(bearer(GATEWAY), "browser")
    assert reason_of(mismatch) == "CALLER_MISMATCH"
    with pytest.raises(Unauthenticated) as wrong:
        known.identify(bearer("made-up"), "browser")
    assert reason_of(wrong) == "BAD_SERVICE_TOKEN"


def test_with_tokens_not_accepted_only_the_certificate_counts():
    known = callers(certificates=True, accept_tokens=False)
    assert known.identify(bearer("made-up"), "browser") == "browser"
    assert known.identify(bearer(GATEWAY), "browser") == "browser"
    with pytest.raises(Unauthenticated):
        known.identify(bearer(SINGLE), None)


def test_some_credential_is_required():
    with pytest.raises(ValueError, match="NOD_SERVICE_TOKEN"):
        Callers(everything=None, services={})
    with pytest.raises(ValueError, match="mutual TLS"):
        Callers(everything=SecretStr(SINGLE), services={}, accept_tokens=False)
    assert Callers(everything=None, services={}, certificates=True).identify("", "tasks") == "tasks"
