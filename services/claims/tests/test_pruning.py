"""The claims service's records that only grow are pruned on a schedule: a
claims server with a short interval, against the real database. Request
ids and TOTP steps older than their keep go, in batches; newer ones stay,
and a resend within the keep still finds the first item."""

import asyncio
import time
import uuid

from nod.claims.v1 import claims_pb2 as pb
from nodtest.canaries import register

# Generous: other test runs share this machine's two cores.
DEADLINE_S = 60.0
KEEP_REQUEST_IDS_S = 3600
KEEP_TOTP_STEPS_S = 7200
OLD = 5  # more than a batch: a round takes several


async def add_old_request_id(db, person: str, seconds_ago: float) -> None:
    await db.execute(
        "INSERT INTO claims.vault_requests (owner, request_id, call, record_id, digest, created_at)"
        " VALUES (%s, %s, 'put_item', %s, 'digest', now() - make_interval(secs => %s))",
        (person, f"old-{uuid.uuid4().hex}", str(uuid.uuid4()), seconds_ago),
    )


async def add_totp_step(db, person: str, step: int, seconds_ago: float) -> None:
    await db.execute(
        "INSERT INTO claims.totp_steps (owner, item_id, step, claim_id, created_at)"
        " VALUES (%s, %s, %s, %s, now() - make_interval(secs => %s))",
        (person, str(uuid.uuid4()), step, str(uuid.uuid4()), seconds_ago),
    )


async def add_account_step(db, person: str, step: int, seconds_ago: float) -> None:
    # An account key of this test's own (in service, a keyed digest).
    await db.execute(
        "INSERT INTO claims.totp_account_steps (account_key, step, claim_id, created_at)"
        " VALUES (%s, %s, %s, now() - make_interval(secs => %s))",
        (f"{person}:{uuid.uuid4().hex}", step, str(uuid.uuid4()), seconds_ago),
    )


async def account_steps(db, person: str) -> list[tuple[int]]:
    found = await db.execute(
        "SELECT step FROM claims.totp_account_steps WHERE account_key LIKE %s", (f"{person}:%",)
    )
    return await found.fetchall()


async def rows(db, table: str, person: str) -> int:
    found = await db.execute(f"SELECT count(*) FROM claims.{table} WHERE owner = %s", (person,))
    return (await found.fetchone())[0]


async def until(check, what: str) -> None:
    deadline = time.monotonic() + DEADLINE_S
    while not await check():
        assert time.monotonic() < deadline, f"not within {DEADLINE_S:g} s: {what}"
        await asyncio.sleep(0.1)


async def test_request_ids_and_totp_steps_past_their_keep_are_pruned(
    claims_with, db, person, as_person
):
    for _ in range(OLD):
        await add_old_request_id(db, person, KEEP_REQUEST_IDS_S + 60)
        await add_totp_step(db, person, 1, KEEP_TOTP_STEPS_S + 60)
        await add_account_step(db, person, 1, KEEP_TOTP_STEPS_S + 60)
    await add_totp_step(db, person, 2, KEEP_TOTP_STEPS_S - 600)  # inside its keep
    await add_account_step(db, person, 2, KEEP_TOTP_STEPS_S - 600)
    _, _, vault = await claims_with(
        request_ids_keep_s=KEEP_REQUEST_IDS_S,
        totp_steps_keep_s=KEEP_TOTP_STEPS_S,
        prune_interval_s=0.2,
        prune_batch=2,
    )
    fields = {"username": "ada@example.com", "password": register("pw-kept-Zq81", "password")}
    request = pb.PutItemRequest(
        item=pb.VaultItem(
            kind=pb.ENTRY_KIND_SAVED_LOGIN, origin="https://shop.example", fields=fields
        ),
        request_id=f"req-{uuid.uuid4().hex}",
    )
    first = (await vault.PutItem(request, metadata=as_person, timeout=20)).item

    async def old_ones_gone() -> bool:
        return (
            await rows(db, "vault_requests", person) == 1
            and await rows(db, "totp_steps", person) == 1
            and len(await account_steps(db, person)) == 1
        )

    await until(old_ones_gone, "the request ids and TOTP steps past their keep deleted")
    # What is inside its keep stays, and still does its work: the resend
    # finds the first item and saves nothing.
    resent = (await vault.PutItem(request, metadata=as_person, timeout=20)).item
    assert resent.id == first.id
    assert await rows(db, "vault_items", person) == 1
    steps = await db.execute("SELECT step FROM claims.totp_steps WHERE owner = %s", (person,))
    assert await steps.fetchall() == [(2,)]
    assert await account_steps(db, person) == [(2,)]
