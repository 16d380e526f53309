"""Retiring a key the apps' credentials were sealed under:
ApprovalsAdminService/Reseal re-seals every connected app's credentials
under the newest key in NOD_VAULT_KEY, so the service started with the
newest key alone still uses them. Run twice, the second run writes
nothing; a disconnected app (its credentials erased) has nothing to
re-seal.

A database of its own: a re-seal acts on every owner's rows, and the other
approvals tests' service knows only the session's key."""

import base64
import os

import psycopg
import pytest

from nod.approvals.v1 import approvals_pb2 as pb
from nod.approvals.v1 import approvals_pb2_grpc
from nod_approvals import MIGRATIONS
from nodkit.client import call_metadata
from nodtest.database import libpq_url, migrated_database

from .support import (
    approvals_settings,
    connect_webhook,
    decide,
    propose,
    start_approvals,
)

OLD = base64.b64encode(os.urandom(32)).decode()
NEW = base64.b64encode(os.urandom(32)).decode()


@pytest.fixture
def own_database():
    with migrated_database(MIGRATIONS) as url:
        yield url


class Approvals:
    """The approvals service in this process, started again with other keys."""

    def __init__(self, database_url: str, service_token) -> None:
        self.database_url = database_url
        self.service_token = service_token
        self.running = None

    async def start(self, vault_key: str):
        await self.stop()
        settings = approvals_settings(
            self.database_url, self.service_token, vault_key, instance_id="approvals-reseal"
        )
        self.running = await start_approvals(settings)
        return self.running.stub

    def admin(self) -> approvals_pb2_grpc.ApprovalsAdminServiceStub:
        assert self.running is not None
        return approvals_pb2_grpc.ApprovalsAdminServiceStub(self.running.channel)

    async def stop(self) -> None:
        if self.running is not None:
            await self.running.stop()
            self.running = None


@pytest.fixture
async def approvals(own_database, service_token):
    started = Approvals(own_database, service_token)
    yield started
    await started.stop()


async def reseal(admin, meta, batch_size: int) -> pb.ResealResponse:
    """The accounts table's final totals."""
    final = [
        reply
        async for reply in admin.Reseal(pb.ResealRequest(batch_size=batch_size), metadata=meta)
        if reply.table_done
    ]
    assert [reply.table for reply in final] == ["accounts"]
    return final[0]


async def sealed_credentials(database_url: str) -> dict[str, dict]:
    async with await psycopg.AsyncConnection.connect(libpq_url(database_url)) as conn:
        cursor = await conn.execute("SELECT id::text, sealed_credentials FROM approvals.accounts")
        return dict(await cursor.fetchall())


def key_ids(rows: dict[str, dict]) -> set[str]:
    return {token.partition(":")[0] for fields in rows.values() for token in fields.values()}


async def test_resealed_credentials_are_used_with_the_old_key_retired(
    approvals, service_token, person, webhook_app
):
    meta = call_metadata(service_token, person)
    stub = await approvals.start(f"old:{OLD}")
    hooks = [await connect_webhook(stub, meta, webhook_app.hook_url()) for _ in range(3)]
    gone = await connect_webhook(stub, meta, webhook_app.hook_url())
    await stub.DisconnectAccount(pb.DisconnectAccountRequest(account_id=gone.id), metadata=meta)
    assert key_ids(await sealed_credentials(approvals.database_url)) == {"old"}

    await approvals.start(f"new:{NEW},old:{OLD}")
    done = await reseal(approvals.admin(), meta, batch_size=2)
    # The disconnected app's credentials were erased: nothing to re-seal.
    assert (done.resealed, done.already_current, done.unreadable) == (3, 1, 0)
    assert done.key_id == "new"
    after_first = await sealed_credentials(approvals.database_url)
    assert key_ids(after_first) == {"new"}

    # Run twice: nothing to do, nothing written.
    again = await reseal(approvals.admin(), meta, batch_size=2)
    assert (again.resealed, again.already_current) == (0, 4)
    assert await sealed_credentials(approvals.database_url) == after_first

    # The old key retired: each app's credentials still open, and are sent.
    stub = await approvals.start(f"new:{NEW}")
    for hook in hooks:
        proposed = await propose(stub, meta, hook, {"ref": hook.id})
        decided = await decide(stub, meta, proposed.id)
        assert decided.execution_state == pb.EXECUTION_STATE_DONE, decided.reason
    assert [entry["has_authorization"] for entry in webhook_app.state.received] == [True] * 3
