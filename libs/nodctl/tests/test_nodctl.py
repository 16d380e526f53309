"""Each nodctl command against real records in the running system: health
and its exit codes; an UNCERTAIN claim, app action and payment listed with
person, task and age; a task's history as the page shows it, changed by a
resolve; people added, their sessions listed and revoked (a revoked session
can't load a page), removed with their tasks stopped and saved items
deleted; the vault re-sealed (twice: nothing the second time)."""

import asyncio
import json
import uuid

import grpc
import httpx
import psycopg
import pytest

from gateway.tests.outside import NOTE_TASK, app_mode, app_received
from gateway.tests.web_client import csrf_of, signed_in_client
from nod.approvals.v1 import approvals_pb2 as approvals
from nod.approvals.v1 import approvals_pb2_grpc
from nod.claims.v1 import claims_pb2 as claims
from nod.claims.v1 import claims_pb2_grpc
from nod.payments.v1 import payments_pb2 as payments
from nod.payments.v1 import payments_pb2_grpc
from nod.tasks.v1 import tasks_pb2 as tasks
from nod.tasks.v1 import tasks_pb2_grpc
from nodtest.claims import put_card, put_login
from nodtest.database import libpq_url
from nodtest.processes import free_port

from .conftest import single

PASSWORD = "a long enough password"
VERSION = "nod-{}/0.1.0"


def fresh_name() -> str:
    return f"cy-{uuid.uuid4().hex[:6]}"


async def add_person(nodctl) -> str:
    name = fresh_name()
    added = await nodctl("people", "add", name, "--password-stdin", stdin=PASSWORD + "\n")
    assert added.code == 0 and f"Added {name}" in added.out, added
    return name


async def until(check, timeout_s: float = 120):
    """check()'s value once it is truthy."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout_s
    while True:
        value = await check()
        if value or loop.time() > deadline:
            return value
        await asyncio.sleep(0.5)


# --- health ---------------------------------------------------------------


async def test_health_shows_every_service_serving_and_its_build(nodctl, system):
    shown = await nodctl("health", "--json")
    assert shown.code == 0, shown
    found = {row["service"]: row for row in json.loads(shown.out)}
    assert set(found) == {"claims", "approvals", "payments", "browser", "tasks", "gateway"}
    for name, row in found.items():
        assert row["status"] == "SERVING", row
        assert row["version"] == VERSION.format(name), row
    assert found["claims"]["api"] == "nod.claims.v1"
    table = await nodctl("health")
    assert table.out.splitlines()[0].split() == ["service", "address", "status", "version", "api"]


async def test_health_asks_each_listed_replica_and_fails_when_one_does_not_answer(
    nodctl, operator_env
):
    # As a StatefulSet's replicas are listed: by name, each its own row.
    live = operator_env["NOD_BROWSER_ADDR"]
    gone = f"localhost:{free_port()}"
    two_replicas = {**operator_env, "NOD_BROWSER_ADDR": f"{live},{gone}"}
    shown = await nodctl("health", "--json", env=two_replicas)
    assert shown.code == 1
    rows = json.loads(shown.out)
    browser = {row["address"]: row["status"] for row in rows if row["service"] == "browser"}
    assert browser[live] == "SERVING"
    assert browser[gone].startswith("UNREACHABLE"), browser
    assert next(row for row in rows if row["service"] == "claims")["status"] == "SERVING"


async def test_health_asks_every_replica_a_dns_name_resolves_to(nodctl, operator_env):
    # As a headless Service names its pods: each address the name has, its own row.
    port = operator_env["NOD_CLAIMS_ADDR"].rpartition(":")[2]
    by_name = {**operator_env, "NOD_CLAIMS_ADDR": f"dns:///localhost:{port}"}
    shown = await nodctl("health", "--json", env=by_name)
    rows = [row for row in json.loads(shown.out) if row["service"] == "claims"]
    status = {row["address"]: row["status"] for row in rows}
    assert status[f"127.0.0.1:{port}"] == "SERVING", status
    assert not [address for address in status if address.startswith("dns:")], status


# --- uncertain, task, resolve ---------------------------------------------


async def uncertain_claim(system, meta) -> claims.Claim:
    async with system.channel("claims") as channel:
        stub = claims_pb2_grpc.ClaimsServiceStub(channel)
        login = await put_login(claims_pb2_grpc.VaultServiceStub(channel), meta)
        holder = f"runner-{uuid.uuid4().hex[:6]}"
        await stub.RenewHolder(claims.RenewHolderRequest(holder=holder), metadata=meta)
        claim = await stub.Claim(
            claims.ClaimRequest(
                operation_id=f"op-{uuid.uuid4().hex}", kind=claims.ENTRY_KIND_SAVED_LOGIN,
                item_id=login.id, origin="https://shop.example", task_id="task-claim",
                holder=holder,
            ),
            metadata=meta,
        )  # fmt: skip
        marked = await stub.MarkUncertain(
            claims.MarkUncertainRequest(claim_id=claim.claim.id, holder=holder, reason="test"),
            metadata=meta,
        )
        return marked.claim


async def uncertain_payment(system, meta) -> payments.Payment:
    async with system.channel("claims") as channel:
        card = await put_card(claims_pb2_grpc.VaultServiceStub(channel), meta)
    async with system.channel("payments") as channel:
        stub = payments_pb2_grpc.PaymentsServiceStub(channel)
        made = await stub.CreatePayment(
            payments.CreatePaymentRequest(
                task_id="task-payment", merchant_origin="https://shop.example",
                amount_minor=1299, currency="EUR", description="Desk lamp",
                card_item_id=card.id, card_label="•••• 1111",
                order_reference=f"order-{uuid.uuid4().hex[:6]}",
                request_id=f"pay-{uuid.uuid4().hex}",
            ),
            metadata=meta,
        )  # fmt: skip
        payment_id = made.payment.id
        await stub.ConfirmPayment(
            payments.ConfirmPaymentRequest(payment_id=payment_id, decision=payments.DECISION_YES),
            metadata=meta,
        )
        await stub.StartCardEntry(
            payments.StartCardEntryRequest(payment_id=payment_id), metadata=meta
        )
        ended = await stub.RecordUncertain(
            payments.RecordUncertainRequest(payment_id=payment_id, reason="test"), metadata=meta
        )
        return ended.payment


async def uncertain_app_action(system, meta) -> tuple[str, int]:
    """The demo note task, its one request dropped by the demo app: the
    step and the execution end UNCERTAIN and the task asks for a check.
    (task id, step number)"""
    app = system.urls["app"]
    async with system.channel("approvals") as channel:
        await approvals_pb2_grpc.ApprovalsServiceStub(channel).ConnectAccount(
            approvals.ConnectAccountRequest(
                account=approvals.Account(
                    app="webhook", label="Demo app", settings={"url": f"{app}/hooks/nod"}
                )
            ),
            metadata=meta,
        )
    async with system.channel("tasks") as channel, system.channel("approvals") as deciding:
        stub = tasks_pb2_grpc.TasksServiceStub(channel)
        started = await stub.StartTask(
            tasks.StartTaskRequest(text=NOTE_TASK, request_id=f"start-{uuid.uuid4().hex}"),
            metadata=meta,
        )
        task_id = started.task.id

        async def waiting_for(kind):
            task = (await stub.GetTask(tasks.GetTaskRequest(task_id=task_id), metadata=meta)).task
            return task if task.wait.kind == kind else None

        asked = await until(lambda: waiting_for(tasks.WAIT_KIND_DECISION))
        assert asked, "the note task never asked for a yes"
        before = len(app_received(app))
        with app_mode(app, "drop"):
            await approvals_pb2_grpc.ApprovalsServiceStub(deciding).Decide(
                approvals.DecideRequest(approval_id=asked.wait.id, decision=approvals.DECISION_YES),
                metadata=meta,
            )
            check = await until(lambda: waiting_for(tasks.WAIT_KIND_CHECK))
        assert check, "the dropped request did not end in a check"
        assert len(app_received(app)) == before + 1
        return task_id, check.wait.step


async def test_uncertain_lists_each_kind_with_person_task_and_age(nodctl, system):
    person = await add_person(nodctl)
    meta = single(system, person)
    claim = await uncertain_claim(system, meta)
    payment = await uncertain_payment(system, meta)
    assert payment.state == payments.PAYMENT_STATE_UNCERTAIN
    task_id, _ = await uncertain_app_action(system, meta)

    listed = await nodctl("uncertain", "--json")
    assert listed.code == 0, listed
    theirs = {row["kind"]: row for row in json.loads(listed.out) if row["person"] == person}
    assert set(theirs) == {"private entry", "app action", "payment"}, theirs
    assert (theirs["private entry"]["id"], theirs["private entry"]["task"]) == (
        claim.id,
        "task-claim",
    )
    assert (theirs["payment"]["id"], theirs["payment"]["task"]) == (payment.id, "task-payment")
    assert theirs["app action"]["task"] == task_id
    for row in theirs.values():
        assert row["age"].endswith(("s", "m")) and row["uncertain_since"], row
        assert row["checked"] == "", row

    table = await nodctl("uncertain")
    mine = [line for line in table.out.splitlines() if person in line]
    assert len(mine) == 3 and any(claim.id in line and "task-claim" in line for line in mine)


async def test_resolve_changes_what_the_task_shows(nodctl, system):
    person = await add_person(nodctl)
    task_id, step = await uncertain_app_action(system, single(system, person))

    before = await nodctl("task", task_id)
    assert before.code == 0, before
    assert f"({person})" in before.out and "State: Needs you" in before.out
    assert "[Uncertain]" in before.out or "Uncertain]" in before.out
    assert "You checked" not in before.out

    resolved = await nodctl("resolve", task_id, str(step), "happened", "--note", "seen in the app")
    assert resolved.code == 0, resolved
    assert f"step {step}: happened" in resolved.out

    async def shows_check():
        shown = await nodctl("task", task_id, "--person", person, "--json")
        lines = json.loads(shown.out)["lines"]
        return any("You checked: it happened." in " ".join(line["extra"]) for line in lines)

    assert await until(shows_check, timeout_s=60)
    # The operator's list says the person already checked it.
    listed = await nodctl("uncertain", "--json")
    theirs = [row for row in json.loads(listed.out) if row["task"] == task_id]
    assert [(row["kind"], row["checked"]) for row in theirs] == [("app action", "it happened")]
    # Resolving the same step again is the service's refusal, said plainly.
    again = await nodctl("resolve", task_id, str(step), "did_not_happen")
    assert again.code == 1 and again.err.startswith("nodctl: the tasks service answered")


async def test_a_task_nobody_has_is_a_clear_error(nodctl):
    shown = await nodctl("task", str(uuid.uuid4()))
    assert shown.code == 1 and "is not anyone's" in shown.err


# --- people ---------------------------------------------------------------


async def signed_in(client: httpx.AsyncClient) -> bool:
    """Whether the session loads a page rather than being sent to sign in
    (the page itself may say a service is slow: still signed in)."""
    page = await client.get("/tasks", follow_redirects=False)
    return not (page.status_code == 303 and "/signin" in page.headers.get("location", ""))


async def test_sessions_are_listed_and_a_revoked_one_loads_no_page(nodctl, system):
    person = await add_person(nodctl)
    assert (await nodctl("people", "add", person, "--password-stdin", stdin=PASSWORD)).code == 1
    async with (
        signed_in_client(system.gateway_url, person, PASSWORD) as first,
        signed_in_client(system.gateway_url, person, PASSWORD) as second,
    ):
        assert await signed_in(first) and await signed_in(second)
        listed = json.loads((await nodctl("people", "sessions", person, "--json")).out)
        assert len(listed) == 2 and all(row["last_seen_at"] for row in listed)
        cookies = " ".join(first.cookies.values()) + " ".join(second.cookies.values())
        assert all(row["id"] not in cookies for row in listed)  # a hash's digits, no token

        # One revoked: which one is told by which client is signed out.
        revoked = await nodctl("people", "revoke", person, listed[0]["id"])
        assert revoked.code == 0 and "Ended 1" in revoked.out
        assert sorted([await signed_in(first), await signed_in(second)]) == [False, True]
        assert len(json.loads((await nodctl("people", "sessions", person, "--json")).out)) == 1

        everything = await nodctl("people", "revoke", person, "--all")
        assert everything.code == 0 and "Ended 1" in everything.out
        assert [await signed_in(first), await signed_in(second)] == [False, False]
    unknown = await nodctl("people", "revoke", person, "abcdef012345")
    assert unknown.code == 1 and "has no session" in unknown.err


async def test_reset_password_signs_in_with_the_new_one_only(nodctl, system):
    person = await add_person(nodctl)
    new = "another long enough password"
    short = await nodctl("people", "reset-password", person, "--password-stdin", stdin="short")
    assert short.code == 1 and "12 to 1024 characters" in short.err
    reset = await nodctl("people", "reset-password", person, "--password-stdin", stdin=new)
    assert reset.code == 0, reset
    async with signed_in_client(system.gateway_url, person, new) as client:
        assert await signed_in(client)
    with pytest.raises(AssertionError):
        async with signed_in_client(system.gateway_url, person, PASSWORD):
            pass


async def test_remove_ends_sessions_stops_tasks_deletes_saved_items_and_apps(nodctl, system):
    person = await add_person(nodctl)
    meta = single(system, person)
    async with system.channel("claims") as channel:
        vault = claims_pb2_grpc.VaultServiceStub(channel)
        await put_login(vault, meta)
        await put_card(vault, meta)
    task_id, _ = await uncertain_app_action(system, meta)  # a task waiting for a check
    async with signed_in_client(system.gateway_url, person, PASSWORD) as client:
        assert await signed_in(client)
        removed = await nodctl("people", "remove", person, "--json")
        assert removed.code == 0, removed
        done = json.loads(removed.out)
        assert done["sessions_ended"] == 1 and done["tasks_stopped"] == [task_id]
        assert sorted(done["saved_items_deleted"]) == ["shop", "visa"] and done["removed"]
        assert done["step_pictures_erased"] == 0  # its one step opened no page
        assert done["apps_disconnected"] == ["Demo app"]
        assert not await signed_in(client)
    async with system.channel("approvals") as channel:
        connected = await approvals_pb2_grpc.ApprovalsServiceStub(channel).ListAccounts(
            approvals.ListAccountsRequest(), metadata=meta
        )
        assert list(connected.accounts) == []
    async with system.channel("claims") as channel:
        items = await claims_pb2_grpc.VaultServiceStub(channel).ListItems(
            claims.ListItemsRequest(), metadata=meta
        )
        assert list(items.items) == []
    async with system.channel("tasks") as channel:
        task = await tasks_pb2_grpc.TasksServiceStub(channel).GetTask(
            tasks.GetTaskRequest(task_id=task_id), metadata=meta
        )
        assert task.task.state == tasks.TASK_STATE_STOPPED
    people = json.loads((await nodctl("people", "list", "--json")).out)
    assert person not in [row["name"] for row in people]
    with pytest.raises(AssertionError):
        async with signed_in_client(system.gateway_url, person, PASSWORD):
            pass
    gone = await nodctl("people", "remove", person)
    assert gone.code == 1 and "no person named" in gone.err


# The tasks service's tables with a row per task, and the column naming it.
TASK_TABLES = {
    "tasks": "id",
    "continue_requests": "task_id",
    "steps": "task_id",
    "step_looks": "task_id",
    "events": "task_id",
    "transcript": "task_id",
}


def words_left(system, task_id: str, words: str) -> dict[str, int]:
    """Rows of the task, by table, whose text holds `words` anywhere."""
    found = {}
    with psycopg.connect(libpq_url(system.database_url())) as conn:
        for table, column in TASK_TABLES.items():
            query = (
                f"SELECT count(*) FROM tasks.{table} AS t"  # the names are ours
                f" WHERE {column} = %s AND t::text ILIKE %s"
            )
            found[table] = conn.execute(query, (task_id, f"%{words}%")).fetchone()[0]
    return found


def approval_words_left(system, task_id: str, words: str) -> int:
    """The task's approvals, executions and their history holding `words`."""
    query = (
        "SELECT count(*) FROM approvals.approvals AS a"
        " LEFT JOIN approvals.executions AS e ON e.approval_id = a.id"
        " LEFT JOIN approvals.approval_events AS h ON h.approval_id = a.id"
        " WHERE a.task_id = %s AND (a::text || coalesce(e::text, '') || coalesce(h::text, ''))"
        " ILIKE %s"
    )
    with psycopg.connect(libpq_url(system.database_url())) as conn:
        return conn.execute(query, (task_id, f"%{words}%")).fetchone()[0]


async def test_remove_erases_their_tasks_and_app_actions_words_and_keeps_what_the_promise_needs(
    nodctl, system
):
    person = await add_person(nodctl)
    meta = single(system, person)
    task_id, step = await uncertain_app_action(system, meta)  # "...: hello from nod"
    assert words_left(system, task_id, "hello from nod")["events"] > 0  # the words were there

    assert approval_words_left(system, task_id, "hello from nod") > 0

    removed = await nodctl("people", "remove", person, "--json")
    assert removed.code == 0, removed
    done = json.loads(removed.out)
    assert done["tasks_words_erased"] == 1 and done["app_actions_words_erased"] == 1
    assert set(words_left(system, task_id, "hello from nod").values()) == {0}
    assert set(words_left(system, task_id, "demo app").values()) == {0}
    assert approval_words_left(system, task_id, "hello from nod") == 0
    # The task and its uncertain step stay, as they were, for the promise.
    async with system.channel("tasks") as channel:
        task = await tasks_pb2_grpc.TasksServiceStub(channel).GetTask(
            tasks.GetTaskRequest(task_id=task_id), metadata=meta
        )
    assert task.task.state == tasks.TASK_STATE_STOPPED and task.task.text == ""
    with psycopg.connect(libpq_url(system.database_url())) as conn:
        kept = conn.execute(
            "SELECT tool, state, approval_id FROM tasks.steps WHERE task_id = %s AND number = %s",
            (task_id, step),
        ).fetchone()
    assert kept[0] and kept[1] == "uncertain" and kept[2], kept
    with psycopg.connect(libpq_url(system.database_url())) as conn:
        approval = conn.execute(
            "SELECT a.state, a.digest, e.state FROM approvals.approvals AS a"
            " JOIN approvals.executions AS e ON e.approval_id = a.id WHERE a.id = %s",
            (kept[2],),
        ).fetchone()
    assert approval[0] == "approved" and len(approval[1]) == 64 and approval[2] == "uncertain"
    with psycopg.connect(libpq_url(system.database_url())) as conn:
        accounts = conn.execute(
            "SELECT label, settings::text FROM approvals.accounts WHERE owner = %s",
            (dict(meta)["x-nod-user"],),
        ).fetchall()
    assert accounts == [("", "{}")]  # the demo app's address and name, gone with them


async def test_a_new_person_given_a_removed_persons_name_owns_nothing_of_theirs(nodctl, system):
    """Names can be given again; ids never are (the gateway's people)."""
    person = await add_person(nodctl)
    old = single(system, person)
    async with system.channel("claims") as channel:
        await put_login(claims_pb2_grpc.VaultServiceStub(channel), old)
    task_id, step = await uncertain_app_action(system, old)
    assert (await nodctl("people", "remove", person)).code == 0
    again = await nodctl("people", "add", person, "--password-stdin", stdin=PASSWORD + "\n")
    assert again.code == 0, again
    new = single(system, person)
    assert dict(new)["x-nod-user"] not in (dict(old)["x-nod-user"], person)

    # Every list the services keep for a person is empty for the new one,
    # and the old one's task is not theirs to read.
    async with system.channel("tasks") as channel:
        stub = tasks_pb2_grpc.TasksServiceStub(channel)
        assert list((await stub.ListTasks(tasks.ListTasksRequest(), metadata=new)).tasks) == []
        with pytest.raises(grpc.aio.AioRpcError) as found:
            await stub.GetTask(tasks.GetTaskRequest(task_id=task_id), metadata=new)
        assert found.value.code() == grpc.StatusCode.NOT_FOUND
    async with system.channel("claims") as channel:
        vault = claims_pb2_grpc.VaultServiceStub(channel)
        assert list((await vault.ListItems(claims.ListItemsRequest(), metadata=new)).items) == []
        listed = await claims_pb2_grpc.ClaimsServiceStub(channel).ListClaims(
            claims.ListClaimsRequest(), metadata=new
        )
        assert list(listed.claims) == []
    async with system.channel("approvals") as channel:
        stub = approvals_pb2_grpc.ApprovalsServiceStub(channel)
        listed = await stub.ListApprovals(approvals.ListApprovalsRequest(), metadata=new)
        assert list(listed.approvals) == []
        accounts = await stub.ListAccounts(approvals.ListAccountsRequest(), metadata=new)
        assert list(accounts.accounts) == []
    async with system.channel("payments") as channel:
        listed = await payments_pb2_grpc.PaymentsServiceStub(channel).ListPayments(
            payments.ListPaymentsRequest(), metadata=new
        )
        assert list(listed.payments) == []

    # Nor on the web: not listed, not shown, and Continue and "I checked"
    # on it change nothing.
    async with signed_in_client(system.gateway_url, person, PASSWORD) as client:
        listing = await client.get("/tasks")
        assert listing.status_code == 200 and task_id not in listing.text
        assert (await client.get(f"/tasks/{task_id}")).status_code == 404
        csrf = csrf_of(listing.text)
        continued = await client.post(f"/tasks/{task_id}/continue", data={"csrf": csrf})
        assert continued.status_code == 404
        checked = await client.post(
            f"/tasks/{task_id}/steps/{step}/resolve",
            data={"csrf": csrf, "found": "happened", "note": ""},
        )
        assert checked.status_code == 404
    async with system.channel("tasks") as channel:
        task = await tasks_pb2_grpc.TasksServiceStub(channel).GetTask(
            tasks.GetTaskRequest(task_id=task_id), metadata=old
        )
        assert task.task.state == tasks.TASK_STATE_STOPPED  # as remove left it


# --- vault ----------------------------------------------------------------


async def test_reseal_on_the_running_system_twice(nodctl):
    first = await nodctl("vault", "reseal", "--json", "--batch-size", "7")
    assert first.code == 0, first
    totals = {row["table"]: row for row in json.loads(first.out)}
    assert {(row["service"], table) for table, row in totals.items()} == {
        ("claims", "vault_items"),
        ("claims", "private_entries"),
        ("approvals", "accounts"),
    }
    for table in ("vault_items", "accounts"):  # make run's demo person has both
        assert totals[table]["resealed"] + totals[table]["already_current"] > 0
    again = {
        row["table"]: row for row in json.loads((await nodctl("vault", "reseal", "--json")).out)
    }
    assert {row["resealed"] for row in again.values()} == {0}
    # Past the limit: the service's refusal names the field.
    too_big = await nodctl("vault", "reseal", "--batch-size", "5000")
    assert too_big.code == 1 and "batch_size" in too_big.err
