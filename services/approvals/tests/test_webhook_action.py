"""A yes runs exactly the saved webhook action, once, and the task sees its result."""

import hashlib
import json

from nod.approvals.v1 import approvals_pb2 as pb

from .support import connect_webhook, decide, get_approval, propose


async def test_a_yes_posts_exactly_the_saved_body_once(approvals_stub, as_person, webhook_app):
    account = await connect_webhook(approvals_stub, as_person, webhook_app.hook_url())
    body = {
        "order": 1042,
        "note": "ship it ✓",
        "items": [{"sku": "A-1", "qty": 2.5}],
        "gift": False,
    }
    approval = await propose(approvals_stub, as_person, account, body)

    assert approval.state == pb.APPROVAL_STATE_PENDING
    assert approval.execution_state == pb.EXECUTION_STATE_UNSPECIFIED
    assert approval.digest == hashlib.sha256(approval.saved_action.encode()).hexdigest()
    saved = json.loads(approval.saved_action)
    assert saved == {
        "account_id": account.id,
        "action": "post",
        "app": "webhook",
        "parameters": body,
    }

    decided = await decide(approvals_stub, as_person, approval.id)

    assert decided.state == pb.APPROVAL_STATE_APPROVED
    assert decided.execution_state == pb.EXECUTION_STATE_DONE
    assert '"ok": true' in decided.result
    [received] = webhook_app.state.received
    stored_body = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    assert received["raw"] == stored_body
    assert stored_body in approval.saved_action
    assert received["idempotency_key"] == decided.execution_id
    assert received["has_authorization"]
    assert await get_approval(approvals_stub, as_person, approval.id) == decided
