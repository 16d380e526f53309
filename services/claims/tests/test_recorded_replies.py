"""The session's private-value scan sees the real claims service's replies:
the recorder is on the tests' channels, what a test puts in the vault
becomes a canary, the granting reply's secret is left out, and a private
value planted where a reply shows it is found. Recorded into a recorder of
the test's own, so the session's scan never sees the planted value."""

import uuid

from nod.claims.v1 import claims_pb2 as pb
from nodtest.canaries import Canaries
from nodtest.leaks import find_leaks
from nodtest.observed import Observations
from nodtest.replies import Recorder, recording_into

from .support import claim_request, live_holder

PUT_ITEM = "/nod.claims.v1.VaultService/PutItem"


def saved_login(password: str, label: str = "shop") -> pb.PutItemRequest:
    fields = {"username": "ada@example.com", "password": password}
    item = pb.VaultItem(
        kind=pb.ENTRY_KIND_SAVED_LOGIN, label=label, origin="https://shop.example", fields=fields
    )
    return pb.PutItemRequest(item=item)


async def test_a_granted_claim_is_recorded_without_its_secret(claims_stub, vault_stub, as_person):
    password = f"recorded-pw-{uuid.uuid4().hex[:12]}"
    recorder = Recorder(Canaries(), Observations())
    with recording_into(recorder):
        item = (await vault_stub.PutItem(saved_login(password), metadata=as_person)).item
        holder = await live_holder(claims_stub, as_person)
        granted = await claims_stub.Claim(claim_request(item, holder), metadata=as_person)

    assert granted.granted and granted.secret_fields["password"] == password
    assert password in {canary.value for canary in recorder.canaries}
    seen = {observation.where for observation in recorder.observations}
    assert {f"gRPC reply: {PUT_ITEM}", "gRPC reply: /nod.claims.v1.ClaimsService/Claim"} <= seen
    assert find_leaks(recorder.canaries, recorder.observations) == []


async def test_a_password_a_reply_shows_is_found(vault_stub, as_person):
    """The label is shown back in the reply: a password typed there leaks."""
    password = f"recorded-pw-{uuid.uuid4().hex[:12]}"
    recorder = Recorder(Canaries(), Observations())
    recorder.canaries.register(password, "password")
    with recording_into(recorder):
        await vault_stub.PutItem(saved_login("other-pw-1234", label=password), metadata=as_person)

    leaks = find_leaks(recorder.canaries, recorder.observations)
    assert [(leak.where, leak.encoding) for leak in leaks] == [(f"gRPC reply: {PUT_ITEM}", "plain")]
