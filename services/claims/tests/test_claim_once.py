"""G2: of N concurrent claims for one operation, exactly one is granted and
only that reply carries the private value."""

import asyncio

import grpc

from nod.claims.v1 import claims_pb2 as pb
from nodkit.client import NodRpcError
from nodtest.claims import CANARY_PASSWORD, op_id, put_login

from .support import claim_request, live_holder

CALLERS = 64
OPERATIONS = 200


async def claim_as_a_runner_does(claims_stub, request, as_person):
    """A Claim, resent after the service answered that no database
    connection was free (DATABASE_BUSY, shed under 640 calls at once on a
    loaded machine): a resend finds the operation's first record."""
    while True:
        try:
            return await claims_stub.Claim(request, metadata=as_person, timeout=60)
        except grpc.aio.AioRpcError as raw:
            if NodRpcError(raw).reason != "DATABASE_BUSY":
                raise
        await asyncio.sleep(0.2)


async def test_64_concurrent_claims_per_id_over_200_ids_grant_once_each(
    claims_stub, vault_stub, as_person, person, db
):
    item = await put_login(vault_stub, as_person)
    holders = [await live_holder(claims_stub, as_person) for _ in range(4)]
    operation_ids = [op_id() for _ in range(OPERATIONS)]

    async def claim_64(operation_id):
        requests = [
            claim_request(item, holders[i % len(holders)], operation_id=operation_id)
            for i in range(CALLERS)
        ]
        return await asyncio.gather(
            *(claim_as_a_runner_does(claims_stub, r, as_person) for r in requests)
        )

    async def claim_10_operations(ids):
        for replies in await asyncio.gather(*(claim_64(o) for o in ids)):
            granted = [r for r in replies if r.granted]
            with_secret = [r for r in replies if r.secret_fields]
            assert len(granted) == 1
            assert len(with_secret) == 1 and with_secret[0] is granted[0]
            assert granted[0].secret_fields["password"] == CANARY_PASSWORD
            assert {r.claim.id for r in replies} == {granted[0].claim.id}
            assert all(r.claim.state == pb.CLAIM_STATE_RUNNING for r in replies)

    async def keep_leases():  # as live runners do, however long a loaded machine takes
        while True:
            await asyncio.sleep(5)
            for holder in holders:
                await claims_stub.RenewHolder(
                    pb.RenewHolderRequest(holder=holder), metadata=as_person
                )

    renewing = asyncio.ensure_future(keep_leases())
    try:
        for start in range(0, OPERATIONS, 10):
            await claim_10_operations(operation_ids[start : start + 10])
    finally:
        renewing.cancel()

    rows = await (
        await db.execute(
            "SELECT count(*), count(DISTINCT operation_id) FROM claims.claims WHERE owner = %s",
            (person,),
        )
    ).fetchone()
    assert rows == (OPERATIONS, OPERATIONS)
    events = await (
        await db.execute(
            "SELECT count(*) FROM claims.claim_events e JOIN claims.claims c ON c.id = e.claim_id"
            " WHERE c.owner = %s",
            (person,),
        )
    ).fetchone()
    assert events == (OPERATIONS,)


async def test_a_resend_after_a_lost_reply_gets_the_claim_without_the_secret(
    claims_stub, vault_stub, as_person
):
    item = await put_login(vault_stub, as_person)
    holder = await live_holder(claims_stub, as_person)
    request = claim_request(item, holder)
    first = await claims_stub.Claim(request, metadata=as_person)
    resent = await claims_stub.Claim(request, metadata=as_person)
    assert first.granted and not resent.granted
    assert dict(resent.secret_fields) == {}
    assert resent.claim.id == first.claim.id and resent.claim.holder == holder


async def test_another_runner_asking_for_the_same_operation_gets_the_state_only(
    claims_stub, vault_stub, as_person
):
    item = await put_login(vault_stub, as_person)
    first_runner = await live_holder(claims_stub, as_person)
    second_runner = await live_holder(claims_stub, as_person)
    operation_id = op_id()
    first = await claims_stub.Claim(
        claim_request(item, first_runner, operation_id=operation_id), metadata=as_person
    )
    second = await claims_stub.Claim(
        claim_request(item, second_runner, operation_id=operation_id), metadata=as_person
    )
    assert first.granted and not second.granted and not second.secret_fields
    assert second.claim.holder == first_runner


async def test_claims_of_many_people_at_once_each_get_their_own_secret(
    claims_stub, vault_stub, service_token
):
    """Claims arriving together are written together (claim_batches.py):
    twenty people using the same operation id at the same moment each get
    exactly their own password, once."""
    from nodkit.client import call_metadata

    people = [call_metadata(service_token, f"person-batch-{i}-{op_id()}") for i in range(20)]
    items = [
        await put_login(vault_stub, meta, password=f"password-of-{i}")
        for i, meta in enumerate(people)
    ]
    holders = [await live_holder(claims_stub, meta) for meta in people]
    operation_id = op_id()

    replies = await asyncio.gather(
        *(
            claims_stub.Claim(
                claim_request(items[i], holders[i], operation_id=operation_id), metadata=meta
            )
            for _ in range(3)
            for i, meta in enumerate(people)
        )
    )
    by_person = [replies[i::20] for i in range(20)]
    for i, theirs in enumerate(by_person):
        granted = [r for r in theirs if r.granted]
        assert len(granted) == 1
        assert dict(granted[0].secret_fields)["password"] == f"password-of-{i}"
        assert {r.claim.item_id for r in theirs} == {items[i].id}
        assert all(not r.secret_fields for r in theirs if not r.granted)
