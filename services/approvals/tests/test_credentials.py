"""Account credentials are write-only: never in a reply, a log line or a
database column outside their ciphertext (DESIGN.md section 4)."""

from nod.approvals.v1 import approvals_pb2 as pb

from .support import (
    CANARY_SMTP_PASSWORD,
    CANARY_TOKEN,
    connect_smtp,
    connect_webhook,
    decide,
    email_parameters,
    propose,
)

CANARIES = (CANARY_TOKEN, CANARY_SMTP_PASSWORD)


def assert_no_canary(text: str) -> None:
    for canary in CANARIES:
        assert canary not in text


async def test_credentials_are_used_but_never_shown_logged_or_stored_in_clear(
    approvals_stub, as_person, webhook_app, smtp_tls_server, log_tee, db
):
    hook = await connect_webhook(approvals_stub, as_person, webhook_app.hook_url())
    mail = await connect_smtp(approvals_stub, as_person, smtp_tls_server.port, login=True)
    posted = await decide(
        approvals_stub,
        as_person,
        (await propose(approvals_stub, as_person, hook, {"ref": 1})).id,
    )
    mailed = await decide(
        approvals_stub,
        as_person,
        (await propose(approvals_stub, as_person, mail, email_parameters())).id,
    )
    listed = await approvals_stub.ListAccounts(pb.ListAccountsRequest(), metadata=as_person)
    gone = (
        await approvals_stub.DisconnectAccount(
            pb.DisconnectAccountRequest(account_id=mail.id), metadata=as_person
        )
    ).account

    # Used: the app got a bearer token, the mail server a login that matched.
    assert posted.execution_state == mailed.execution_state == pb.EXECUTION_STATE_DONE
    assert webhook_app.state.received[0]["has_authorization"]
    assert smtp_tls_server.handler.logins == [("nod-mailer", True)]
    # Shown masked, by name only.
    assert dict(hook.credentials) == {"token": "••••••••"}
    assert dict(mail.credentials) == {"username": "••••••••", "password": "••••••••"}
    assert dict(gone.credentials) == {} and not gone.connected
    for reply in (hook, mail, posted, mailed, listed, gone):
        assert_no_canary(str(reply))
        assert_no_canary(reply.SerializeToString().decode(errors="replace"))
    assert_no_canary(log_tee.text())
    for table in ("accounts", "approvals", "executions", "approval_events", "instance_leases"):
        cursor = await db.execute(
            f"SELECT (to_jsonb(t) - 'sealed_credentials')::text, "
            f"coalesce(to_jsonb(t) -> 'sealed_credentials', 'null')::text FROM approvals.{table} t"
        )
        for clear, sealed in await cursor.fetchall():
            assert_no_canary(clear)
            assert_no_canary(sealed)
    cursor = await db.execute(
        "SELECT sealed_credentials FROM approvals.accounts WHERE id = %s", (hook.id,)
    )
    [(sealed,)] = await cursor.fetchall()
    assert set(sealed) == {"token"} and sealed["token"].startswith("k")
