"""A vault key that changed under a kept database (var/ lost, a Secret
replaced): the claims and approvals services refuse to start while their
database holds values sealed under a key id NOD_VAULT_KEY does not list,
in one line naming the key ids and what to do, with a non-zero exit and no
traceback. A retired key still listed is fine. `nodctl vault
drop-unreadable --key ID` drops exactly what that key sealed, once, says
what it dropped, refuses a key the ring lists, and finds nothing the
second time; the services then start with the new key alone.

Each test has a database of its own: a start refusal reads every row."""

import asyncio
import base64
import os
import subprocess
import sys
import tempfile
import uuid

import psycopg
import pytest
from psycopg.types.json import Jsonb
from pydantic import SecretStr

from nod.approvals.v1 import approvals_pb2, approvals_pb2_grpc
from nod.claims.v1 import claims_pb2 as pb
from nod.claims.v1 import claims_pb2_grpc
from nod_approvals import MIGRATIONS as APPROVALS_MIGRATIONS
from nod_claims import MIGRATIONS as CLAIMS_MIGRATIONS
from nodkit.client import call_metadata, open_channel, wait_until_serving
from nodkit.crypto import Sealer
from nodkit.startup import unknown_keys_problem
from nodtest import observed
from nodtest.claims import CANARY_PASSWORD, put_entry, put_login
from nodtest.database import create_test_database, drop_test_database, libpq_url
from nodtest.processes import ServiceProcess, free_port

KEY_A = base64.b64encode(os.urandom(32)).decode()
KEY_B = base64.b64encode(os.urandom(32)).decode()
A_ONLY = f"key-a:{KEY_A}"
B_ONLY = f"key-b:{KEY_B}"
B_THEN_A = f"key-b:{KEY_B},key-a:{KEY_A}"  # key-a retired, still listed
TOKEN = "lost-vault-key-token"
NODCTL = os.path.join(os.path.dirname(sys.executable), "nodctl")


@pytest.fixture
def own_database():
    url = create_test_database()
    try:
        CLAIMS_MIGRATIONS.upgrade(url)
        APPROVALS_MIGRATIONS.upgrade(url)
        yield url
    finally:
        observed.keep_database(libpq_url(url))
        drop_test_database(url)


def environment(database_url: str, vault_key: str, **more: str) -> dict[str, str]:
    """What an operator's shell or a pod has: nothing of this test's own NOD_*."""
    base = {name: value for name, value in os.environ.items() if not name.startswith("NOD_")}
    return {
        **base,
        "NOD_DATABASE_URL": database_url,
        "NOD_SERVICE_TOKEN": TOKEN,
        "NOD_VAULT_KEY": vault_key,
        "NOD_MIGRATION_POLL_S": "0.2",
        **more,
    }


class Started:
    """One service as a process on a port of its own."""

    def __init__(self, service: str, database_url: str, log_dir) -> None:
        self.service = service
        self.database_url = database_url
        self.log_dir = log_dir
        self.address = f"127.0.0.1:{free_port()}"
        self.process: ServiceProcess | None = None

    def env(self, vault_key: str) -> dict[str, str]:
        return environment(
            self.database_url,
            vault_key,
            **{
                f"NOD_{self.service.upper()}_LISTEN": self.address,
                "NOD_INSTANCE_ID": f"lost-key-{self.service}",
            },
        )

    async def serving(self, vault_key: str) -> None:
        self.stop()
        log = self.log_dir / f"{self.service}-{uuid.uuid4().hex[:6]}.log"
        self.process = ServiceProcess(f"nod_{self.service}", self.env(vault_key), log)
        self.process.start()
        try:
            await wait_until_serving(self.address, timeout_s=120)
        except TimeoutError:
            log_text = self.process.log_text()
            raise AssertionError(f"{self.service} did not start:\n{log_text}") from None

    def refused(self, vault_key: str) -> subprocess.CompletedProcess:
        """Started as a pod starts it; it must end on its own."""
        self.stop()
        return subprocess.run(
            [sys.executable, "-m", f"nod_{self.service}", "serve"],
            env=self.env(vault_key),
            capture_output=True,
            text=True,
            timeout=180,
        )

    def stop(self) -> None:
        if self.process is not None:
            self.process.stop()
            self.process = None


@pytest.fixture
def started(own_database, tmp_path):
    made: list[Started] = []

    def start(service: str) -> Started:
        made.append(Started(service, own_database, tmp_path))
        return made[-1]

    yield start
    for each in made:
        each.stop()


async def nodctl(database_url: str, vault_key: str, *args: str) -> subprocess.CompletedProcess:
    """The console script, as an operator runs it, away from any var/."""
    return await asyncio.to_thread(
        subprocess.run,
        [NODCTL, *args],
        env=environment(database_url, vault_key),
        capture_output=True,
        text=True,
        timeout=240,
        cwd=tempfile.gettempdir(),
    )


def the_one_line(done: subprocess.CompletedProcess, service: str) -> str:
    """A refused start: a non-zero exit, one line, no traceback."""
    output = done.stdout + done.stderr
    assert "Traceback" not in output, output
    lines = [line for line in output.splitlines() if line.strip()]
    assert len(lines) == 1, lines
    assert done.returncode != 0
    assert lines[0].startswith(f"nod-{service}: "), lines[0]
    return lines[0]


async def item_labels(address: str, meta) -> list[str]:
    async with open_channel(address) as channel:
        reply = await claims_pb2_grpc.VaultServiceStub(channel).ListItems(
            pb.ListItemsRequest(), metadata=meta, timeout=30
        )
    return sorted(item.label for item in reply.items)


async def test_claims_refuses_a_key_it_lacks_until_it_is_listed_or_dropped(started, person):
    claims = started("claims")
    meta = call_metadata(SecretStr(TOKEN), person)

    # Sealed under key-a: a saved login and a typed one-time code.
    await claims.serving(A_ONLY)
    async with open_channel(claims.address) as channel:
        vault = claims_pb2_grpc.VaultServiceStub(channel)
        lost_login = await put_login(vault, meta)
        await put_entry(vault, meta, pb.ENTRY_KIND_ONE_TIME_CODE, {"code": "492817"})

    # key-a replaced by key-b (var/ lost, the database kept): no start.
    line = the_one_line(claims.refused(B_ONLY), "claims")
    assert "vault key(s) key-a (vault_items, private_entries)" in line
    assert "NOD_VAULT_KEY does not have" in line
    assert "set NOD_VAULT_KEY to include them" in line
    assert "'nodctl vault drop-unreadable --key key-a'" in line
    assert "key-b" not in line and KEY_A not in line and KEY_B not in line

    # key-a retired but still listed: it starts, and what it writes is key-b's.
    await claims.serving(B_THEN_A)
    assert await item_labels(claims.address, meta) == ["shop"]
    async with open_channel(claims.address) as channel:
        vault = claims_pb2_grpc.VaultServiceStub(channel)
        kept = await vault.PutItem(
            pb.PutItemRequest(
                item=pb.VaultItem(
                    kind=pb.ENTRY_KIND_SAVED_LOGIN,
                    label="kept",
                    origin="https://kept.example",
                    fields={"username": "ada", "password": "kept-password-1"},
                )
            ),
            metadata=meta,
        )
    claims.stop()

    # A key the ring lists is never dropped.
    listed = await nodctl(claims.database_url, B_THEN_A, "vault", "drop-unreadable", "--key=key-a")
    assert listed.returncode != 0 and "Traceback" not in listed.stderr
    assert "key-a" in listed.stderr and "NOD_VAULT_KEY" in listed.stderr

    # Dropped once, explicitly; what was dropped is said, never a value.
    dropped = await nodctl(claims.database_url, B_ONLY, "vault", "drop-unreadable", "--key=key-a")
    assert dropped.returncode == 0, dropped.stderr
    rows = [line.split() for line in dropped.stdout.splitlines()]
    assert ["claims", "vault_items", "saved_login", "1", "deleted"] in rows
    assert ["claims", "private_entries", "one_time_code", "1", "deleted"] in rows
    assert not [row for row in rows if row and row[0] == "approvals"]
    assert CANARY_PASSWORD not in dropped.stdout + dropped.stderr

    # Twice: nothing left to drop, and it says so.
    again = await nodctl(claims.database_url, B_ONLY, "vault", "drop-unreadable", "--key=key-a")
    assert again.returncode == 0, again.stderr
    assert "nothing dropped" in again.stdout and "deleted" not in again.stdout

    # key-b alone now starts; the lost login is gone, key-b's is kept.
    await claims.serving(B_ONLY)
    assert await item_labels(claims.address, meta) == ["kept"]
    async with open_channel(claims.address) as channel:
        vault = claims_pb2_grpc.VaultServiceStub(channel)
        gone = await vault.ListItems(pb.ListItemsRequest(), metadata=meta)
    assert lost_login.id not in {item.id for item in gone.items}
    assert kept.item.id in {item.id for item in gone.items}


async def connected_account(database_url: str, vault_key: str, owner: str) -> str:
    """An app account as ConnectAccount stores it: credentials sealed under
    the ring's newest key for (owner, accounts, row id, name)."""
    account_id = str(uuid.uuid4())
    credentials = {"secret": "app-secret-1"}
    sealed = Sealer(vault_key).seal_fields(credentials, owner, "accounts", account_id)
    async with await psycopg.AsyncConnection.connect(libpq_url(database_url)) as conn:
        await conn.execute(
            "INSERT INTO approvals.accounts (id, owner, app, label, settings, sealed_credentials)"
            " VALUES (%s, %s, 'webhook', 'App', '{\"url\": \"https://app.example/hook\"}', %s)",
            (account_id, owner, Jsonb(sealed)),
        )
    return account_id


async def test_approvals_refuses_credentials_under_a_key_it_lacks(started, person):
    approvals = started("approvals")
    account_id = await connected_account(approvals.database_url, A_ONLY, person)

    line = the_one_line(approvals.refused(B_ONLY), "approvals")
    assert "vault key(s) key-a (accounts)" in line
    assert "'nodctl vault drop-unreadable --key key-a'" in line

    await approvals.serving(B_THEN_A)
    approvals.stop()

    dropped = await nodctl(
        approvals.database_url, B_ONLY, "vault", "drop-unreadable", "--key", "key-a", "--json"
    )
    assert dropped.returncode == 0, dropped.stderr
    assert '"action": "disconnected"' in dropped.stdout
    assert "app-secret-1" not in dropped.stdout
    async with await psycopg.AsyncConnection.connect(libpq_url(approvals.database_url)) as conn:
        row = await (
            await conn.execute(
                "SELECT sealed_credentials, disconnected_at FROM approvals.accounts WHERE id = %s",
                (account_id,),
            )
        ).fetchone()
    assert row is not None and row[0] == {} and row[1] is not None  # kept, disconnected

    await approvals.serving(B_ONLY)
    async with open_channel(approvals.address) as channel:
        listed = await approvals_pb2_grpc.ApprovalsServiceStub(channel).ListAccounts(
            approvals_pb2.ListAccountsRequest(),
            metadata=call_metadata(SecretStr(TOKEN), person),
            timeout=30,
        )
    assert list(listed.accounts) == []


def test_what_is_no_key_id_is_never_printed():
    line = unknown_keys_problem({"kA": ["vault_items"], "4111 1111 1111 1111": ["accounts"]})
    assert "4111" not in line
    assert "key(s) (no key id) (accounts), kA (vault_items) that" in line
    assert line.endswith("'nodctl vault drop-unreadable --key kA'")
