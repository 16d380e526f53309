"""A code from a saved login's TOTP seed is granted once per time step and
login (RFC 6238, 5.2: a site refuses a code used before): the grant carries
the code and when it becomes valid, never the seed; a second sign-in in the
same window gets the next step's code; racing grants get different steps."""

import asyncio
import time

import grpc
import pyotp
import pytest

from nod.claims.v1 import claims_pb2 as pb
from nodtest.claims import ORIGIN, put_login
from nodtest.rpc import expect_error

from .support import claim_request, live_holder

SEED = "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP"


async def login_with_seed(vault_stub, meta) -> pb.VaultItem:
    item = await put_login(vault_stub, meta)
    fields = {"username": "ada@example.com", "password": "pw-1234567", "totp_seed": SEED}
    reply = await vault_stub.PutItem(
        pb.PutItemRequest(
            item=pb.VaultItem(
                id=item.id, kind=item.kind, label=item.label, origin=ORIGIN, fields=fields
            )
        ),
        metadata=meta,
    )
    return reply.item


def with_code(request: pb.ClaimRequest) -> pb.ClaimRequest:
    request.totp_code = True
    return request


async def test_each_time_step_is_granted_once_and_the_seed_never_leaves(
    claims_stub, vault_stub, as_person
):
    item = await login_with_seed(vault_stub, as_person)
    holder = await live_holder(claims_stub, as_person)
    first, second = [
        await claims_stub.Claim(with_code(claim_request(item, holder)), metadata=as_person)
        for _ in range(2)
    ]

    assert first.granted and second.granted
    for grant in (first, second):
        assert "totp_seed" not in grant.secret_fields
        assert set(grant.secret_fields) >= {"username", "password", "totp_code"}
    start_1 = int(first.secret_fields["totp_not_before"])
    start_2 = int(second.secret_fields["totp_not_before"])
    assert start_2 == start_1 + 30 and start_1 <= time.time() < start_2
    totp = pyotp.TOTP(SEED)
    assert first.secret_fields["totp_code"] == totp.at(start_1)
    assert second.secret_fields["totp_code"] == totp.at(start_2)


async def test_racing_grants_of_one_login_take_different_steps(claims_stub, vault_stub, as_person):
    item = await login_with_seed(vault_stub, as_person)
    holder = await live_holder(claims_stub, as_person)
    grants = await asyncio.gather(
        *(
            claims_stub.Claim(with_code(claim_request(item, holder)), metadata=as_person)
            for _ in range(2)
        )
    )
    steps = sorted(int(g.secret_fields["totp_not_before"]) for g in grants)
    assert steps[1] == steps[0] + 30


async def test_a_third_sign_in_in_one_window_is_refused_and_its_claim_ends_having_typed_nothing(
    claims_stub, vault_stub, as_person
):
    item = await login_with_seed(vault_stub, as_person)
    holder = await live_holder(claims_stub, as_person)
    for _ in range(2):
        await claims_stub.Claim(with_code(claim_request(item, holder)), metadata=as_person)
    third = claim_request(item, holder)
    await expect_error(
        claims_stub.Claim(with_code(third), metadata=as_person),
        grpc.StatusCode.FAILED_PRECONDITION,
        reason="TOTP_STEPS_USED",
    )
    found = await claims_stub.FindClaim(
        pb.FindClaimRequest(
            operation_id=third.operation_id,
            kind=third.kind,
            item_id=item.id,
            task_id=third.task_id,
        ),
        metadata=as_person,
    )
    assert found.claim.state == pb.CLAIM_STATE_UNCERTAIN
    assert "nothing was entered" in found.claim.reason


@pytest.mark.parametrize("kind", [pb.ENTRY_KIND_CARD])
async def test_only_a_saved_login_asks_for_a_code(claims_stub, vault_stub, as_person, kind):
    item = await login_with_seed(vault_stub, as_person)
    holder = await live_holder(claims_stub, as_person)
    await expect_error(
        claims_stub.Claim(with_code(claim_request(item, holder, kind=kind)), metadata=as_person),
        grpc.StatusCode.INVALID_ARGUMENT,
        field="totp_code",
    )


def test_the_next_step_is_this_one_unless_it_was_granted():
    from nod_claims.domain import totp

    assert totp.next_step(100, None) == 100
    assert totp.next_step(100, 99) == 100
    assert totp.next_step(100, 100) == 101
    assert totp.grant(SEED, 101, 100).not_before == 101 * 30
    with pytest.raises(Exception, match="all used"):
        totp.grant(SEED, 102, 100)
