from nod.claims.v1 import claims_pb2 as pb
from nodtest.claims import CANARY_PASSWORD, claim_request, live_holder, put_login


async def test_a_saved_login_is_granted_once(claims_stub, vault_stub, as_person):
    item = await put_login(vault_stub, as_person)
    holder = await live_holder(claims_stub, as_person)
    request = claim_request(item, holder)
    first = await claims_stub.Claim(request, metadata=as_person)
    second = await claims_stub.Claim(request, metadata=as_person)
    assert first.granted and first.secret_fields["password"] == CANARY_PASSWORD
    assert first.claim.state == pb.CLAIM_STATE_RUNNING
    assert not second.granted and dict(second.secret_fields) == {}
    assert second.claim.id == first.claim.id
