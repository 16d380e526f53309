"""The session's private-value scan can fail: a canary planted in a log file
or a gRPC reply is found in each encoding, reported without its value; a
short code only where it really stands; and the one reply allowed to carry
a private value (a granted claim's secret_fields) is left out, nothing else.
Each test scans only what it planted, with canaries of its own."""

import base64
import html
import json
import urllib.parse
import uuid

from nod.claims.v1 import claims_pb2
from nodtest.canaries import Canaries
from nodtest.leaks import find_leaks, report
from nodtest.observed import Observations
from nodtest.replies import Recorder


def fresh_password() -> str:
    # "~~~" makes its base64 and base64url differ ("fn5+"); "&", "<" and
    # the space make its HTML, URL and form encodings differ.
    return f"~~~planted &pw<{uuid.uuid4().hex[:10]}!"


def log_lines(*values: str) -> str:
    return "\n".join(
        json.dumps({"event": "page.read", "service": "browser", "text": f"seen {value} here"})
        for value in values
    )


def test_a_password_in_a_log_is_found_in_every_encoding(tmp_path):
    password = fresh_password()
    raw = password.encode()
    encodings = {
        "plain": password,
        "base64": base64.b64encode(raw).decode(),
        "base64url": base64.urlsafe_b64encode(raw).decode(),
        "hex": raw.hex(),
        "HEX": raw.hex().upper(),
        "URL-encoded": urllib.parse.quote(password, safe=""),
        "form-encoded": urllib.parse.quote_plus(password),
        "HTML-escaped": html.escape(password),
    }
    canaries = Canaries()
    canaries.register(password, "password")
    for encoding, planted in encodings.items():
        log = tmp_path / f"{encoding}.log"
        log.write_text(log_lines("nothing private", planted))
        observations = Observations()
        observations.keep_file(f"log: {log.name}", log)

        leaks = find_leaks(canaries, observations)

        assert [leak.where for leak in leaks] == [f"log: {log.name}"], encoding
        assert encoding in {leak.encoding for leak in leaks}
        shown = report(leaks)
        assert "password" in shown
        for every in encodings.values():
            assert every not in shown


def test_a_password_inside_longer_base64_is_found_at_any_offset():
    password = fresh_password()
    canaries = Canaries()
    canaries.register(password, "password")
    for before in (b"", b"x", b"xy", b"xyz", b'{"password": "'):
        blob = base64.b64encode(before + password.encode() + b'"}').decode()
        observations = Observations()
        observations.keep("gRPC reply: /nod.example/Blob", json.dumps({"data": blob}))

        assert find_leaks(canaries, observations), before


def test_a_card_number_in_a_reply_is_found_plain_spaced_and_dashed():
    number = "4000056655665556"
    canaries = Canaries()
    canaries.register(number, "card number")
    for written in (number, "4000 0566 5566 5556", "4000-0566-5566-5556"):
        observations = Observations()
        recorder = Recorder(canaries, observations)
        claim = claims_pb2.Claim(id="c-1", reason=f"the page said card {written} was declined")
        recorder.reply(
            "/nod.claims.v1.ClaimsService/GetClaim", claims_pb2.GetClaimResponse(claim=claim)
        )

        leaks = find_leaks(canaries, observations)

        assert [leak.where for leak in leaks] == [
            "gRPC reply: /nod.claims.v1.ClaimsService/GetClaim"
        ]
        assert number not in report(leaks) and written not in report(leaks)


def test_a_one_time_code_counts_only_as_a_whole_token():
    canaries = Canaries()
    canaries.register("482913", "one-time code")
    innocent = Observations()
    innocent.keep("log: a", '{"timestamp": "2026-12-02T06:28:45.482913Z", "port": 4829130}')
    innocent.keep("log: b", '{"id": "op-482913", "listen": "127.0.0.1:482913"}')
    assert find_leaks(canaries, innocent) == []

    for written in ('{"typed": "482913"}', "code=482913&next=/", "the code 482913."):
        observations = Observations()
        observations.keep("gateway page: /tasks/1", written)
        assert len(find_leaks(canaries, observations)) == 1, written


def test_one_character_over_and_over_is_nobodys_canary():
    # A fuzzed vault item's password of padding, and another test's huge
    # path: the same x's, and no private value of anyone's between them.
    canaries = Canaries()
    canaries.register("x" * 5000, "password (vault item)")
    canaries.register("••••••••", "password (a listing's mask)")
    observations = Observations()
    observations.keep("log: gateway", '{"path": "/tasks/' + "x" * 6000 + '", "status": 400}')
    assert len(canaries) == 0
    assert find_leaks(canaries, observations) == []


def test_a_security_code_counts_next_to_its_field_name():
    canaries = Canaries()
    canaries.register("737", "security code")
    innocent = Observations()
    innocent.keep("log: a", "listening on 127.0.0.1:7373, 737 rows, took 0.737 s")
    assert find_leaks(canaries, innocent) == []

    for written in ('{"cvc": "737"}', "security_code=737", "CVV: 737", "cvc%3D737"):
        observations = Observations()
        observations.keep("log: a", written)
        assert len(find_leaks(canaries, observations)) == 1, written


def test_only_the_secret_fields_of_a_granted_claim_are_left_out():
    password = fresh_password()
    canaries = Canaries()
    observations = Observations()
    recorder = Recorder(canaries, observations)
    claim = "/nod.claims.v1.ClaimsService/Claim"

    granted = claims_pb2.ClaimResponse(
        granted=True, claim=claims_pb2.Claim(id="c-1"), secret_fields={"password": password}
    )
    recorder.reply(claim, granted)
    # What was granted is private from then on: a canary everywhere else.
    assert password in {canary.value for canary in canaries}
    assert find_leaks(canaries, observations) == []

    # The same value anywhere else in that reply, or in a reply that did not grant.
    granted.claim.reason = f"typed {password}"
    recorder.reply(claim, granted)
    refused = claims_pb2.ClaimResponse(granted=False, secret_fields={"password": password})
    recorder.reply(claim, refused)

    leaks = find_leaks(canaries, observations)
    assert [leak.where for leak in leaks] == [f"gRPC reply: {claim}"] * 2


def test_what_a_test_sends_to_the_vault_becomes_a_canary():
    canaries = Canaries()
    recorder = Recorder(canaries, Observations())
    item = claims_pb2.VaultItem(
        kind=claims_pb2.ENTRY_KIND_CARD,
        fields={"number": "5555555555554444", "expiry": "12/29", "holder_name": "Ada Lovelace"},
    )
    recorder.request("/nod.claims.v1.VaultService/PutItem", claims_pb2.PutItemRequest(item=item))
    entry = claims_pb2.PutPrivateEntryRequest(
        kind=claims_pb2.ENTRY_KIND_SECURITY_CODE, fields={"security_code": "1234"}
    )
    recorder.request("/nod.claims.v1.VaultService/PutPrivateEntry", entry)

    assert {canary.value for canary in canaries} == {"5555555555554444", "1234"}


def test_each_sighting_is_told_where_it_is():
    password = fresh_password()
    canaries = Canaries()
    canaries.register(password, "password")
    observations = Observations()
    for where, text in (
        ("log: a", "nothing"),
        ("log: b", f"typed {password} twice: {password}"),
        ("log: c", ""),
        ("log: d", password),
    ):
        observations.keep(where, text)

    leaks = find_leaks(canaries, observations)

    assert [leak.where for leak in leaks] == ["log: b", "log: d"]
    assert leaks[0].excerpt.startswith("typed «password»")
