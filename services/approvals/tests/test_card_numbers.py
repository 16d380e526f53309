"""Card numbers never reach the approvals tables or replies (G8), however they
are written (nodkit.cards): a proposal holding one in its summary, its
parameters (values, keys, lists) or an id is refused naming the field, and
nothing is written; an app's answer holding one is stored masked."""

import grpc
import pytest

from nod.approvals.v1 import approvals_pb2 as pb
from nodkit.cards import card_numbers_in
from nodtest.card_shapes import CARD, SEEN_STORED
from nodtest.rpc import expect_error

from .support import connect_webhook, decide, proposal, propose, snapshot, struct

# Where a proposal carries text: the field named in the refusal, and how the
# text is put there.
PLACES = {
    "summary": lambda text: {"summary": f"Order for {text}"},
    "request_id": lambda text: {"request_id": text},
    "task_id": lambda text: {"task_id": text},
    "parameters.note": lambda text: {"parameters": struct({"note": f"ref {text} please"})},
    "parameters.lines[1]": lambda text: {"parameters": struct({"lines": ["ok", text]})},
    "parameters": lambda text: {"parameters": struct({text: "the key holds it"})},
    "parameters.deep.keys": lambda text: {"parameters": struct({"deep": {"keys": {text: 1}}})},
}


def rows_text(rows: dict) -> str:
    return "\n".join(str(row) for table in rows.values() for row in table)


@pytest.mark.parametrize("shape", SEEN_STORED)
@pytest.mark.parametrize("field", sorted(PLACES))
async def test_a_card_number_in_any_shape_and_field_of_a_proposal_is_refused(
    approvals_stub, as_person, db, webhook_app, shape, field
):
    hook = await connect_webhook(approvals_stub, as_person, webhook_app.hook_url())
    request = proposal(hook, {"a": 1})
    for name, value in PLACES[field](shape).items():
        if name == "parameters":
            request.parameters.CopyFrom(value)
        else:
            setattr(request, name, value)
    before = await snapshot(db)

    await expect_error(
        approvals_stub.Propose(request, metadata=as_person),
        grpc.StatusCode.INVALID_ARGUMENT,
        field=field,
    )

    after = await snapshot(db)
    assert after == before
    assert not card_numbers_in(rows_text(after))


async def test_a_card_number_in_an_apps_answer_is_stored_masked(
    approvals_stub, as_person, db, webhook_app
):
    account = await connect_webhook(approvals_stub, as_person, webhook_app.hook_url())
    approval = await propose(approvals_stub, as_person, account, {"ref": 1})
    echoed = f"card4242.4242.4242.4242 was declined; also rq-{CARD}, 4242  4242  4242  4242"
    webhook_app.state.set_mode("reject", message=echoed)

    decided = await decide(approvals_stub, as_person, approval.id)

    assert decided.execution_state == pb.EXECUTION_STATE_FAILED
    assert "was declined" in decided.reason and "[redacted-number]" in decided.reason
    assert not card_numbers_in(decided.reason), decided.reason
    stored = rows_text(await snapshot(db))
    assert "was declined" in stored and not card_numbers_in(stored)
    assert "4242.4242" not in stored and "4242  4242" not in stored and CARD not in stored
