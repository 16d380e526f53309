"""A removed person's app action words (EraseActionWords, called by nodctl
people remove): erased from their approvals that are over, never from one
pending or still to run, nobody else's, once; the states, the digest of
what ran and the times stay. The database itself refuses any other change
to a decided approval made in erasure's name (migration 0006)."""

import psycopg
import pytest

from nod.approvals.v1 import approvals_pb2 as pb
from nodkit.client import call_metadata

from .support import connect_webhook, decide, propose, task, wait_for_approval

WORDS = "lilac fence paint"


async def erase(stub, meta) -> pb.EraseActionWordsResponse:
    return await stub.EraseActionWords(pb.EraseActionWordsRequest(), metadata=meta)


async def row(db, approval_id: str) -> dict:
    cursor = await db.execute(
        "SELECT a.summary, a.saved_action, a.digest, a.state, a.erased_at,"
        " e.state AS run, e.result FROM approvals.approvals AS a"
        " LEFT JOIN approvals.executions AS e ON e.approval_id = a.id WHERE a.id = %s",
        (approval_id,),
    )
    names = [column.name for column in cursor.description]
    return dict(zip(names, await cursor.fetchone(), strict=True))


async def test_only_what_is_over_is_erased_once_and_what_ran_stays(
    approvals_stub, as_person, service_token, webhook_app, db
):
    account = await connect_webhook(approvals_stub, as_person, webhook_app.hook_url())
    task_id = task()
    waiting = await propose(approvals_stub, as_person, account, {"text": WORDS}, task_id=task_id)
    refused = await propose(approvals_stub, as_person, account, {"text": WORDS}, summary=WORDS)
    ran = await propose(approvals_stub, as_person, account, {"text": WORDS}, summary=WORDS)
    await decide(approvals_stub, as_person, refused.id, pb.DECISION_NO)
    await decide(approvals_stub, as_person, ran.id)
    await wait_for_approval(
        approvals_stub, as_person, ran.id, lambda a: a.execution_state == pb.EXECUTION_STATE_DONE
    )
    before = await row(db, ran.id)

    stranger = await erase(approvals_stub, call_metadata(service_token, "someone-else"))
    assert (stranger.erased, list(stranger.still_open)) == (0, [])
    assert WORDS in (await row(db, ran.id))["saved_action"]

    mine = await erase(approvals_stub, as_person)
    assert (mine.erased, list(mine.still_open)) == (2, [waiting.id])
    assert (await row(db, ran.id))["digest"] == before["digest"]
    for erased in (refused.id, ran.id):
        now = await row(db, erased)
        assert (now["summary"], now["saved_action"], now["result"] or "") == ("", "", "")
        assert now["erased_at"] is not None
    after = await row(db, ran.id)
    assert (after["digest"], after["state"], after["run"]) == (
        before["digest"], "approved", "done"
    )  # fmt: skip
    assert WORDS in (await row(db, waiting.id))["saved_action"]  # pending: kept
    assert (await erase(approvals_stub, as_person)).erased == 0

    await approvals_stub.CancelForTask(pb.CancelForTaskRequest(task_id=task_id), metadata=as_person)
    last = await erase(approvals_stub, as_person)
    assert (last.erased, list(last.still_open)) == (1, [])
    # An erased approval still reads, with its state.
    read = await approvals_stub.GetApproval(
        pb.GetApprovalRequest(approval_id=ran.id), metadata=as_person
    )
    assert read.approval.state == pb.APPROVAL_STATE_APPROVED and read.approval.summary == ""


async def test_the_database_lets_erasure_empty_words_and_change_nothing_else(
    approvals_stub, as_person, webhook_app, db
):
    account = await connect_webhook(approvals_stub, as_person, webhook_app.hook_url())
    pending = await propose(approvals_stub, as_person, account, {"text": WORDS})
    decided = await propose(approvals_stub, as_person, account, {"text": WORDS})
    await decide(approvals_stub, as_person, decided.id, pb.DECISION_NO)

    erasing = (
        "UPDATE approvals.approvals SET summary = '', saved_action = '', reason = '',"
        " erased_at = now(){also} WHERE id = %s"
    )
    for approval_id, also in (
        (pending.id, ""),  # not over
        (decided.id, ", state = 'approved'"),  # a state changed under erasure's name
        (decided.id, ", digest = repeat('0', 64)"),  # what it was changed
    ):
        with pytest.raises(psycopg.errors.RaiseException):
            await db.execute(erasing.format(also=also), (approval_id,))
    with pytest.raises(psycopg.errors.RaiseException):  # words kept while erased_at is set
        await db.execute(
            "UPDATE approvals.approvals SET erased_at = now() WHERE id = %s", (decided.id,)
        )
    await db.execute(erasing.format(also=""), (decided.id,))
    assert (await row(db, decided.id))["saved_action"] == ""
    with pytest.raises(psycopg.errors.RaiseException):  # once erased, unchangeable again
        await db.execute(
            "UPDATE approvals.approvals SET summary = 'new words' WHERE id = %s", (decided.id,)
        )


async def test_a_disconnected_accounts_label_and_settings_are_erased_its_row_kept(
    approvals_stub, as_person, webhook_app, db
):
    kept = await connect_webhook(approvals_stub, as_person, webhook_app.hook_url())
    gone = await connect_webhook(approvals_stub, as_person, webhook_app.hook_url())
    await approvals_stub.DisconnectAccount(
        pb.DisconnectAccountRequest(account_id=gone.id), metadata=as_person
    )

    assert (await erase(approvals_stub, as_person)).accounts_erased == 1
    assert (await erase(approvals_stub, as_person)).accounts_erased == 0
    cursor = await db.execute(
        "SELECT id::text, label, settings::text FROM approvals.accounts WHERE id IN (%s, %s)",
        (kept.id, gone.id),
    )
    rows = {row[0]: row[1:] for row in await cursor.fetchall()}
    assert rows[gone.id] == ("", "{}")
    assert rows[kept.id][0] == "orders hook" and webhook_app.hook_url() in rows[kept.id][1]
