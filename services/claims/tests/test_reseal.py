"""Retiring a vault key: VaultAdminService/Reseal re-seals every saved item
and private entry under the newest key in NOD_VAULT_KEY, so the service
started with the newest key alone still opens them all. Run twice, the
second run writes nothing; killed midway, a rerun finishes the job. Only
the operator may call it.

A database of its own: a re-seal acts on every owner's rows, and the other
claims tests' service knows only the session's key."""

import base64
import os

import grpc
import psycopg
import pytest
from pydantic import SecretStr

from nod.claims.v1 import claims_pb2 as pb
from nod.claims.v1 import claims_pb2_grpc
from nod_claims import MIGRATIONS
from nodkit.client import call_metadata, open_channel
from nodtest.claims import CANARY_PASSWORD, ORIGIN, put_login
from nodtest.database import libpq_url, migrated_database
from nodtest.processes import ServiceProcess, free_port, wait_until_serving
from nodtest.rpc import expect_error

from .support import claim_request, live_holder

OLD = base64.b64encode(os.urandom(32)).decode()
NEW = base64.b64encode(os.urandom(32)).decode()
OPERATOR, GATEWAY, SINGLE = "operator-token", "gateway-token", "single-token"
CODE = "492817"


@pytest.fixture
def own_database():
    with migrated_database(MIGRATIONS) as url:
        yield url


class Claims:
    """The claims service as a process on one port, restarted with other keys."""

    def __init__(self, database_url: str, log_dir) -> None:
        self.database_url = database_url
        self.log_dir = log_dir
        self.address = f"127.0.0.1:{free_port()}"
        self.process: ServiceProcess | None = None
        self.channel: grpc.aio.Channel | None = None

    async def start(self, vault_key: str) -> None:
        await self.stop()
        env = {
            "NOD_DATABASE_URL": self.database_url,
            "NOD_SERVICE_TOKEN": SINGLE,
            "NOD_SERVICE_TOKENS": f"operator:{OPERATOR},gateway:{GATEWAY}",
            "NOD_VAULT_KEY": vault_key,
            "NOD_CLAIMS_LISTEN": self.address,
            "NOD_INSTANCE_ID": "claims-reseal-test",
        }
        self.process = ServiceProcess("nod_claims", env, self.log_dir / "claims.log")
        self.process.start()
        await wait_until_serving(self.address, timeout_s=120)
        self.channel = open_channel(self.address)

    async def stop(self) -> None:
        if self.channel is not None:
            await self.channel.close()
            self.channel = None
        if self.process is not None:
            self.process.stop()
            self.process = None

    def stubs(self):
        return (
            claims_pb2_grpc.ClaimsServiceStub(self.channel),
            claims_pb2_grpc.VaultServiceStub(self.channel),
            claims_pb2_grpc.VaultAdminServiceStub(self.channel),
        )


@pytest.fixture
async def claims_process(own_database, tmp_path):
    claims = Claims(own_database, tmp_path)
    yield claims
    await claims.stop()


def operator():
    return call_metadata(SecretStr(OPERATOR))


async def reseal(admin, batch_size: int) -> dict[str, pb.ResealResponse]:
    """Each table's final totals."""
    final = {}
    async for reply in admin.Reseal(pb.ResealRequest(batch_size=batch_size), metadata=operator()):
        if reply.table_done:
            final[reply.table] = reply
    return final


async def sealed_rows(database_url: str) -> dict[str, dict]:
    """Every sealed value as stored, by row id."""
    async with await psycopg.AsyncConnection.connect(libpq_url(database_url)) as conn:
        rows = await (
            await conn.execute(
                "SELECT id::text, sealed_fields FROM claims.vault_items"
                " UNION ALL SELECT id::text, sealed_fields FROM claims.private_entries"
            )
        ).fetchall()
    return dict(rows)


def key_ids(rows: dict[str, dict]) -> set[str]:
    return {token.partition(":")[0] for fields in rows.values() for token in fields.values()}


async def fill(vault, meta, logins: int, entries: int) -> tuple[list, list[str]]:
    saved = [await put_login(vault, meta) for _ in range(logins)]
    typed = [
        (
            await vault.PutPrivateEntry(
                pb.PutPrivateEntryRequest(
                    task_id="task-1",
                    kind=pb.ENTRY_KIND_ONE_TIME_CODE,
                    fields={"code": CODE},
                    origin=ORIGIN,
                ),
                metadata=meta,
            )
        ).id
        for _ in range(entries)
    ]
    return saved, typed


async def all_open(claims_stub, meta, saved, typed) -> None:
    """Each saved login and each typed code is granted with its value."""
    holder = await live_holder(claims_stub, meta)
    for item in saved:
        reply = await claims_stub.Claim(claim_request(item, holder), metadata=meta)
        assert reply.granted and reply.secret_fields["password"] == CANARY_PASSWORD
    for entry_id in typed:
        request = pb.ClaimRequest(
            operation_id=f"op-{entry_id}",
            kind=pb.ENTRY_KIND_ONE_TIME_CODE,
            item_id=entry_id,
            origin="https://shop.example",
            task_id="task-1",
            holder=holder,
        )
        reply = await claims_stub.Claim(request, metadata=meta)
        assert reply.granted and dict(reply.secret_fields) == {"code": CODE}


async def test_resealed_rows_open_with_the_old_key_retired(claims_process, person):
    as_person = call_metadata(SecretStr(SINGLE), person)
    await claims_process.start(f"old:{OLD}")
    _, vault, _ = claims_process.stubs()
    saved, typed = await fill(vault, as_person, logins=5, entries=3)
    assert key_ids(await sealed_rows(claims_process.database_url)) == {"old"}

    await claims_process.start(f"new:{NEW},old:{OLD}")
    _, _, admin = claims_process.stubs()
    done = await reseal(admin, batch_size=2)
    assert (done["vault_items"].resealed, done["vault_items"].already_current) == (5, 0)
    assert (done["private_entries"].resealed, done["private_entries"].already_current) == (3, 0)
    assert {reply.unreadable for reply in done.values()} == {0}
    assert {reply.key_id for reply in done.values()} == {"new"}
    after_first = await sealed_rows(claims_process.database_url)
    assert key_ids(after_first) == {"new"}

    # Run twice: nothing to do, nothing written.
    again = await reseal(admin, batch_size=2)
    assert (again["vault_items"].resealed, again["vault_items"].already_current) == (0, 5)
    assert (again["private_entries"].resealed, again["private_entries"].already_current) == (0, 3)
    assert await sealed_rows(claims_process.database_url) == after_first

    # The old key retired: every value still opens.
    await claims_process.start(f"new:{NEW}")
    claims_stub, _, _ = claims_process.stubs()
    await all_open(claims_stub, as_person, saved, typed)


async def test_killed_midway_a_rerun_finishes(claims_process, person):
    as_person = call_metadata(SecretStr(SINGLE), person)
    await claims_process.start(f"old:{OLD}")
    _, vault, _ = claims_process.stubs()
    saved, typed = await fill(vault, as_person, logins=10, entries=0)
    await claims_process.start(f"new:{NEW},old:{OLD}")
    _, _, admin = claims_process.stubs()

    # The fifth row (in the order the re-seal reads them) is held locked, so
    # the re-seal commits four one-row batches, then waits on it, and is
    # killed there.
    ids = sorted(item.id for item in saved)
    async with await psycopg.AsyncConnection.connect(
        libpq_url(claims_process.database_url)
    ) as holding:
        await holding.execute(
            "SELECT 1 FROM claims.vault_items WHERE id = %s FOR UPDATE", (ids[4],)
        )
        stream = admin.Reseal(pb.ResealRequest(batch_size=1), metadata=operator())
        for _ in range(4):
            reply = await stream.read()
            assert reply.table == "vault_items" and not reply.table_done
        assert reply.resealed == 4
        claims_process.process.kill()
        stream.cancel()
        await holding.rollback()
    rows = await sealed_rows(claims_process.database_url)
    assert [key_ids({row_id: rows[row_id]}) for row_id in ids] == [{"new"}] * 4 + [{"old"}] * 6

    await claims_process.start(f"new:{NEW},old:{OLD}")
    _, _, admin = claims_process.stubs()
    done = await reseal(admin, batch_size=3)
    assert (done["vault_items"].resealed, done["vault_items"].already_current) == (6, 4)
    await claims_process.start(f"new:{NEW}")
    claims_stub, _, _ = claims_process.stubs()
    await all_open(claims_stub, as_person, saved, typed)


async def first_reply(stream):
    return await stream.read()


async def test_only_the_operator_may_reseal(claims_process):
    await claims_process.start(f"new:{NEW}")
    _, _, admin = claims_process.stubs()
    await expect_error(
        first_reply(admin.Reseal(pb.ResealRequest(), metadata=call_metadata(SecretStr(GATEWAY)))),
        grpc.StatusCode.PERMISSION_DENIED,
        reason="CALLER_NOT_ALLOWED",
    )
    await expect_error(
        first_reply(admin.Reseal(pb.ResealRequest(batch_size=5000), metadata=operator())),
        grpc.StatusCode.INVALID_ARGUMENT,
        field="batch_size",
    )
