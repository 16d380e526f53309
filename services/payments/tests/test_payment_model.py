"""The payments service against a plain-Python model of its rules (G5, G8,
G11, G12), driven by a hypothesis state machine: CreatePayment (new, resent
after a lost answer, the same request id with other content, another
payment for the same order), ConfirmPayment yes and no (again, and the other
way after), StartCardEntry, the runner's card claim in the real claims
service, RecordSubmitted and RecordUncertain under it, RecordOutcome,
CancelForTask, and restarts of the payments service (stop and start with
the same instance id: its boot reconcile ends its RUNNING payments
UNCERTAIN). After every few steps the person's payments as listed must be
the model's; each card claim granted is a side effect in the history, which
must show one per payment and no UNCERTAIN payment ever changing.

Replay a failure with NOD_HYPOTHESIS_SEED=<the seed printed first>; a deep
run with NOD_SOAK_SCALE=50 (100,000 steps)."""

import itertools
import uuid
from collections import Counter
from dataclasses import dataclass
from typing import ClassVar

import grpc
import pytest
from hypothesis import strategies as st
from hypothesis.stateful import (
    Bundle,
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
)

from nod.claims.v1 import claims_pb2 as claims_pb
from nod.claims.v1 import claims_pb2_grpc
from nod.payments.v1 import payments_pb2 as pb
from nod.payments.v1 import payments_pb2_grpc
from nodkit.client import NodRpcError, call_metadata, open_channel
from nodtest.claims import put_card
from nodtest.history_check import History, Outcome
from nodtest.model_runs import InProcess, Loop, run_machine
from nodtest.soak_report import soak_scale

from .conftest import start_payments_server
from .support import CARD_LABEL, SHOP

pytestmark = pytest.mark.state_machine

EXAMPLES = 36
STEPS = 55
MIN_STEPS = 2000
# A service restart costs a boot: about half the examples restart it, at
# most once every this many steps.
STEPS_BETWEEN_RESTARTS = 40
# Every rule checks its own reply; the whole list is compared this often,
# and after any rule that changes more than the payment it names.
FULL_CHECK_EVERY = 4

AWAITING = pb.PAYMENT_STATE_AWAITING_CONFIRMATION
CONFIRMED = pb.PAYMENT_STATE_CONFIRMED
RUNNING = pb.PAYMENT_STATE_RUNNING
SUBMITTED = pb.PAYMENT_STATE_SUBMITTED
UNCERTAIN = pb.PAYMENT_STATE_UNCERTAIN
REFUSED = pb.PAYMENT_STATE_REFUSED
CANCELLED = pb.PAYMENT_STATE_CANCELLED
NEVER_PAID = frozenset({REFUSED, CANCELLED, pb.PAYMENT_STATE_EXPIRED})
YES_GIVEN = frozenset({CONFIRMED, RUNNING, SUBMITTED, UNCERTAIN})
STARTED = frozenset({RUNNING, SUBMITTED, UNCERTAIN})
# The reason a refused transition names, by where the payment stands.
WHERE_IT_STANDS = {
    AWAITING: "NOT_CONFIRMED",
    CONFIRMED: "NOT_STARTED",
    RUNNING: "ALREADY_STARTED",
    SUBMITTED: "ALREADY_SUBMITTED",
    UNCERTAIN: "ALREADY_UNCERTAIN",
    REFUSED: "ALREADY_REFUSED",
    CANCELLED: "CANCELLED",
}
STATE_NAMES = {
    value: name.removeprefix("PAYMENT_STATE_").lower() for name, value in pb.PaymentState.items()
}
FAILED = grpc.StatusCode.FAILED_PRECONDITION


@dataclass
class ModelPayment:
    request_id: str
    task_id: str
    amount_minor: int
    card_item_id: str
    description: str = "1 × blue teapot"
    payment_id: str = ""
    state: int = AWAITING
    outcome: int = pb.PAYMENT_OUTCOME_UNSPECIFIED
    card_operation_id: str = ""
    # The card claim the runner was granted, and where it stands.
    claim_id: str = ""
    claim_state: int = claims_pb.CLAIM_STATE_UNSPECIFIED
    # The claim the payment recorded with its end.
    recorded_claim_id: str = ""

    def request(self, **changes) -> pb.CreatePaymentRequest:
        values = {
            "request_id": self.request_id,
            "task_id": self.task_id,
            "merchant_origin": SHOP,
            "amount_minor": self.amount_minor,
            "currency": "EUR",
            "description": self.description,
            "card_item_id": self.card_item_id,
            "card_label": CARD_LABEL,
            **changes,
        }
        return pb.CreatePaymentRequest(**values)

    def same_order(self, other: "ModelPayment") -> bool:
        return (self.task_id, self.amount_minor) == (other.task_id, other.amount_minor)


@dataclass
class Run:
    loop: Loop
    payments: InProcess
    claims_address: str
    token: object


class PaymentsModel(RuleBasedStateMachine):
    run: Run
    steps_taken = 0
    # How often each state was reached, so a run shows what it exercised.
    reached: ClassVar[Counter[str]] = Counter()

    payments = Bundle("payments")

    def __init__(self) -> None:
        super().__init__()
        self.person = f"person-{uuid.uuid4().hex[:12]}"
        self.meta = call_metadata(self.run.token, self.person)  # type: ignore[arg-type]
        self.tasks = [f"task-{uuid.uuid4().hex[:8]}" for _ in range(2)]
        self.holder = f"runner-{uuid.uuid4().hex[:6]}"
        self.model: dict[str, ModelPayment] = {}
        self.amounts = itertools.count(100)
        self.card_item_id = ""
        self.history = History()
        self.may_restart = False
        self.steps_since_restart = 0
        self.steps_since_full_check = 0
        self.claims_channel: grpc.aio.Channel | None = None

    # --- plumbing -------------------------------------------------------------

    @property
    def stub(self) -> payments_pb2_grpc.PaymentsServiceStub:
        return self.run.payments.stub(payments_pb2_grpc.PaymentsServiceStub)

    @property
    def claims(self) -> claims_pb2_grpc.ClaimsServiceStub:
        return claims_pb2_grpc.ClaimsServiceStub(self.claims_channel)

    def call(self, method, request):
        async def go():
            try:
                return await method(request, metadata=self.meta, timeout=30)
            except grpc.aio.AioRpcError as raw:
                return NodRpcError(raw)

        return self.run.loop.run(go())

    def refused(self, answer, code: grpc.StatusCode, reason: str) -> None:
        assert isinstance(answer, NodRpcError), f"expected {reason}, got {answer}"
        assert (answer.code, answer.reason) == (code, reason), answer

    def adopt(self, reply, payment: ModelPayment) -> None:
        assert not isinstance(reply, NodRpcError), reply
        got = reply.payment
        if payment.payment_id:
            assert got.id == payment.payment_id
        payment.payment_id = got.id
        self.model[got.id] = payment
        self.compare(got, payment)

    def compare(self, got: pb.Payment, payment: ModelPayment) -> None:
        PaymentsModel.reached[STATE_NAMES[got.state]] += 1
        assert (got.state, got.outcome, got.card_operation_id, got.claim_id) == (
            payment.state,
            payment.outcome,
            payment.card_operation_id,
            payment.recorded_claim_id,
        ), (got, payment)

    def live_payment_for(self, payment: ModelPayment) -> ModelPayment | None:
        for other in self.model.values():
            if other.same_order(payment) and other.state not in NEVER_PAID:
                return other
        return None

    def create(self, payment: ModelPayment, lose_first_answer: bool) -> str:
        live = self.live_payment_for(payment)
        reply = self.call(self.stub.CreatePayment, payment.request())
        outcome = Outcome.UNKNOWN if lose_first_answer else Outcome.OK
        self.history.operation(payment.request_id, "create", outcome, scope=payment.task_id)
        if live is not None:
            reason = "PAYMENT_UNCERTAIN" if live.state == UNCERTAIN else "DUPLICATE_ORDER"
            self.refused(reply, FAILED, reason)
            return ""
        if lose_first_answer:
            reply = self.call(self.stub.CreatePayment, payment.request())
        self.adopt(reply, payment)
        return payment.payment_id

    def new_payment(self, task: int, amount_minor: int | None = None) -> ModelPayment:
        return ModelPayment(
            request_id=f"request-{uuid.uuid4()}",
            task_id=self.tasks[task],
            amount_minor=amount_minor or next(self.amounts),
            card_item_id=self.card_item_id,
        )

    # --- rules ----------------------------------------------------------------

    @initialize(may_restart=st.booleans())
    def saved_card(self, may_restart: bool) -> None:
        self.may_restart = may_restart

        async def put():
            self.claims_channel = open_channel(self.run.claims_address)
            vault = claims_pb2_grpc.VaultServiceStub(self.claims_channel)
            return (await put_card(vault, self.meta)).id

        self.card_item_id = self.run.loop.run(put())

    @rule(target=payments, task=st.integers(0, 1), lose_first_answer=st.booleans())
    def create_new(self, task, lose_first_answer):
        return self.create(self.new_payment(task), lose_first_answer)

    @rule(target=payments, payment_id=payments)
    def create_for_the_same_order(self, payment_id):
        """Another request for an order the task has a payment for."""
        if not payment_id:
            return ""
        earlier = self.model[payment_id]
        payment = self.new_payment(self.tasks.index(earlier.task_id), earlier.amount_minor)
        return self.create(payment, lose_first_answer=False)

    @rule(payment_id=payments)
    def create_resent(self, payment_id):
        if not payment_id:
            return
        payment = self.model[payment_id]
        reply = self.call(self.stub.CreatePayment, payment.request())
        self.history.operation(payment.request_id, "create", Outcome.OK)
        self.adopt(reply, payment)

    @rule(payment_id=payments)
    def create_other_content_under_the_same_request_id(self, payment_id):
        if not payment_id:
            return
        payment = self.model[payment_id]
        reply = self.call(self.stub.CreatePayment, payment.request(description="2 × red teapot"))
        self.history.operation(payment.request_id, "create", Outcome.FAILED)
        self.refused(reply, grpc.StatusCode.ALREADY_EXISTS, "REQUEST_ID_REUSED")

    @precondition(lambda self: self.any_payment(lambda p: p.state == AWAITING))
    @rule(data=st.data())
    def say_yes_to_an_awaiting_payment(self, data):
        self.confirm(self.pick(data, lambda p: p.state == AWAITING).payment_id, yes=True)

    @rule(payment_id=payments, yes=st.booleans())
    def confirm(self, payment_id, yes):
        if not payment_id:
            return
        payment = self.model[payment_id]
        decision = pb.DECISION_YES if yes else pb.DECISION_NO
        request = pb.ConfirmPaymentRequest(payment_id=payment_id, decision=decision)
        reply = self.call(self.stub.ConfirmPayment, request)
        self.history.operation(payment_id, "confirm", Outcome.OK, scope=payment.task_id)
        if payment.state == AWAITING:
            payment.state = CONFIRMED if yes else REFUSED
        elif yes and payment.state in YES_GIVEN:
            pass
        elif not yes and payment.state == REFUSED:
            pass
        elif not yes and payment.state in YES_GIVEN:
            return self.refused(reply, FAILED, "ALREADY_CONFIRMED")
        else:
            return self.refused(reply, FAILED, WHERE_IT_STANDS[payment.state])
        self.adopt(reply, payment)

    def pick(self, data, wanted) -> ModelPayment:
        """One of the payments the lifecycle can go on with (a rule drawing
        from every payment would rarely reach a card entry's end)."""
        # In the order they were made: ids are random, the order is the run's.
        ids = [p.payment_id for p in self.model.values() if wanted(p)]
        return self.model[data.draw(st.sampled_from(ids))]

    def any_payment(self, wanted) -> bool:
        return any(wanted(p) for p in self.model.values())

    @precondition(lambda self: self.any_payment(lambda p: p.state == CONFIRMED))
    @rule(data=st.data())
    def start_a_confirmed_card_entry(self, data):
        self.start_card_entry(self.pick(data, lambda p: p.state == CONFIRMED).payment_id)

    @rule(payment_id=payments)
    def start_card_entry(self, payment_id):
        if not payment_id:
            return
        payment = self.model[payment_id]
        request = pb.StartCardEntryRequest(payment_id=payment_id)
        reply = self.call(self.stub.StartCardEntry, request)
        if payment.state != CONFIRMED:
            reason = "ALREADY_STARTED" if payment.state in STARTED else None
            return self.refused(reply, FAILED, reason or WHERE_IT_STANDS[payment.state])
        assert not isinstance(reply, NodRpcError), reply
        assert reply.card_operation_id == reply.payment.card_operation_id != ""
        payment.state = RUNNING
        payment.card_operation_id = reply.card_operation_id
        self.adopt(reply, payment)

    @precondition(lambda self: self.any_payment(lambda p: p.card_operation_id))
    @rule(data=st.data())
    def runner_claims_the_card(self, data):
        """The runner claims the card under the payment's card operation id:
        granted once, whatever happens to the payment after."""
        self.claim_card(self.pick(data, lambda p: p.card_operation_id))

    @precondition(lambda self: self.any_payment(lambda p: p.state == RUNNING and not p.claim_id))
    @rule(data=st.data())
    def runner_enters_the_card_and_submits(self, data):
        """The whole entry as it goes when nothing breaks."""
        payment = self.pick(data, lambda p: p.state == RUNNING and not p.claim_id)
        self.claim_card(payment)
        self.submit_card(payment)

    def claim_card(self, payment: ModelPayment) -> None:
        payment_id = payment.payment_id

        async def claim():
            await self.claims.RenewHolder(
                claims_pb.RenewHolderRequest(holder=self.holder), metadata=self.meta
            )
            request = claims_pb.ClaimRequest(
                operation_id=payment.card_operation_id,
                kind=claims_pb.ENTRY_KIND_CARD,
                item_id=payment.card_item_id,
                origin=SHOP,
                task_id=payment.task_id,
                holder=self.holder,
            )
            return await self.claims.Claim(request, metadata=self.meta)

        reply = self.run.loop.run(claim())
        self.history.operation(payment.card_operation_id, "claim card", Outcome.OK)
        if reply.granted:
            assert not payment.claim_id, "a card claim was granted twice"
            self.history.side_effect(payment_id, "card released")
            payment.claim_id = reply.claim.id
        assert reply.claim.id == payment.claim_id
        payment.claim_state = reply.claim.state

    def end_claim(self, payment: ModelPayment, target: int) -> None:
        """The runner ends its claim (if it is still RUNNING)."""
        if payment.claim_state != claims_pb.CLAIM_STATE_RUNNING:
            return
        if target == claims_pb.CLAIM_STATE_SUBMITTED:
            request = claims_pb.MarkSubmittedRequest(claim_id=payment.claim_id, holder=self.holder)
            ended = self.call(self.claims.MarkSubmitted, request)
        else:
            request = claims_pb.MarkUncertainRequest(
                claim_id=payment.claim_id, holder=self.holder, reason="cut off"
            )
            ended = self.call(self.claims.MarkUncertain, request)
        assert not isinstance(ended, NodRpcError), ended
        payment.claim_state = target

    def finished(self, reply, payment: ModelPayment, target: int, claim_id: str) -> None:
        """What RecordSubmitted / RecordUncertain must answer."""
        if payment.state != RUNNING:
            if payment.state == target and (
                not claim_id or payment.recorded_claim_id in ("", claim_id)
            ):
                return self.adopt(reply, payment)
            reason = "CLAIM_MISMATCH" if payment.state == target else None
            return self.refused(reply, FAILED, reason or WHERE_IT_STANDS[payment.state])
        if target == SUBMITTED and payment.claim_state != claims_pb.CLAIM_STATE_SUBMITTED:
            return self.refused(reply, FAILED, "CLAIM_NOT_SUBMITTED")
        payment.state = target
        payment.recorded_claim_id = claim_id
        self.adopt(reply, payment)

    @precondition(lambda self: self.any_payment(lambda p: p.claim_id))
    @rule(data=st.data())
    def card_submitted(self, data):
        self.submit_card(self.pick(data, lambda p: p.claim_id))

    def submit_card(self, payment: ModelPayment) -> None:
        payment_id = payment.payment_id
        self.end_claim(payment, claims_pb.CLAIM_STATE_SUBMITTED)
        request = pb.RecordSubmittedRequest(payment_id=payment_id, claim_id=payment.claim_id)
        reply = self.call(self.stub.RecordSubmitted, request)
        self.finished(reply, payment, SUBMITTED, payment.claim_id)

    @precondition(lambda self: self.any_payment(lambda p: p.card_operation_id))
    @rule(data=st.data(), name_the_claim=st.booleans())
    def card_entry_uncertain(self, data, name_the_claim):
        payment = self.pick(data, lambda p: p.card_operation_id)
        payment_id = payment.payment_id
        claim_id = payment.claim_id if name_the_claim else ""
        if claim_id:
            self.end_claim(payment, claims_pb.CLAIM_STATE_UNCERTAIN)
        request = pb.RecordUncertainRequest(payment_id=payment_id, reason="cut", claim_id=claim_id)
        reply = self.call(self.stub.RecordUncertain, request)
        self.finished(reply, payment, UNCERTAIN, claim_id)

    @rule(
        payment_id=payments,
        outcome=st.sampled_from(
            [pb.PAYMENT_OUTCOME_PAID, pb.PAYMENT_OUTCOME_DECLINED, pb.PAYMENT_OUTCOME_UNKNOWN]
        ),
    )
    def record_outcome(self, payment_id, outcome):
        if not payment_id:
            return
        self.outcome_of(self.model[payment_id], outcome)

    @precondition(lambda self: self.any_payment(lambda p: p.state == SUBMITTED))
    @rule(
        data=st.data(),
        outcome=st.sampled_from(
            [pb.PAYMENT_OUTCOME_PAID, pb.PAYMENT_OUTCOME_DECLINED, pb.PAYMENT_OUTCOME_UNKNOWN]
        ),
    )
    def record_the_outcome_of_a_submitted_payment(self, data, outcome):
        self.outcome_of(self.pick(data, lambda p: p.state == SUBMITTED), outcome)

    def outcome_of(self, payment: ModelPayment, outcome: int) -> None:
        payment_id = payment.payment_id
        request = pb.RecordOutcomeRequest(payment_id=payment_id, outcome=outcome)
        reply = self.call(self.stub.RecordOutcome, request)
        if payment.state != SUBMITTED:
            return self.refused(reply, FAILED, "NOT_SUBMITTED")
        if payment.outcome not in (pb.PAYMENT_OUTCOME_UNSPECIFIED, outcome):
            return self.refused(reply, FAILED, "OUTCOME_ALREADY_RECORDED")
        payment.outcome = outcome
        self.adopt(reply, payment)

    # Only while something could be cancelled: each call commits, which costs.
    @precondition(lambda self: self.any_payment(lambda p: p.state in (AWAITING, CONFIRMED)))
    @rule(task=st.integers(0, 1))
    def cancel_for_task(self, task):
        request = pb.CancelForTaskRequest(task_id=self.tasks[task], reason="Stop")
        reply = self.call(self.stub.CancelForTask, request)
        assert not isinstance(reply, NodRpcError), reply
        mine = [p for p in self.model.values() if p.task_id == self.tasks[task]]
        cancelled = {p.payment_id for p in mine if p.state in (AWAITING, CONFIRMED)}
        assert {p.id for p in reply.cancelled} == cancelled
        assert {p.id for p in reply.left_running} == {
            p.payment_id for p in mine if p.state == RUNNING
        }
        for payment_id in cancelled:
            self.model[payment_id].state = CANCELLED
        self.steps_since_full_check = FULL_CHECK_EVERY

    @precondition(
        lambda self: self.may_restart and self.steps_since_restart >= STEPS_BETWEEN_RESTARTS
    )
    @rule()
    def payments_service_restarts(self):
        """Stop and start with the same instance id: the card entries this
        instance was running were cut off and may have reached the shop."""
        self.run.loop.run(self.run.payments.restart())
        self.steps_since_restart = 0
        for payment in self.model.values():
            if payment.state == RUNNING:
                payment.state = UNCERTAIN
        self.steps_since_full_check = FULL_CHECK_EVERY

    # --- what must always hold -----------------------------------------------

    def service_lists_the_model(self) -> None:
        self.steps_since_full_check = 0
        listed = self.call(self.stub.ListPayments, pb.ListPaymentsRequest(page_size=500))
        assert not isinstance(listed, NodRpcError), listed
        seen = {p.id: p for p in listed.payments}
        assert seen.keys() == self.model.keys()
        for payment_id, payment in self.model.items():
            self.history.seen(payment_id, STATE_NAMES[seen[payment_id].state])
            self.compare(seen[payment_id], payment)

    @invariant()
    def service_matches_the_model(self):
        PaymentsModel.steps_taken += 1
        self.steps_since_restart += 1
        self.steps_since_full_check += 1
        if self.steps_since_full_check >= FULL_CHECK_EVERY:
            self.service_lists_the_model()

    def teardown(self):
        try:
            self.service_lists_the_model()
            self.history.assert_kept()
        finally:
            if self.claims_channel is not None:
                self.run.loop.run(self.claims_channel.close(None))


# A deep run (make soak) takes NOD_SOAK_SCALE times as long as make test's.
@pytest.mark.timeout(600 * soak_scale())
def test_payments_follow_their_model(payments_migrated, service_token, claims_peer, log_tee):
    loop = Loop()

    def start():
        return start_payments_server(
            payments_migrated,
            service_token,
            instance_id="payments-model",
            sweep_interval_s=3600,
            claims_addr=claims_peer.address,
        )

    payments = InProcess(start)
    loop.run(payments.start())
    PaymentsModel.run = Run(loop, payments, claims_peer.address, service_token)
    PaymentsModel.steps_taken = 0
    PaymentsModel.reached.clear()
    try:
        run_machine(
            "payments",
            PaymentsModel,
            examples=EXAMPLES,
            steps=STEPS,
            min_steps=MIN_STEPS,
            steps_done=lambda: PaymentsModel.steps_taken,
        )
    finally:
        loop.run(payments.stop())
        loop.close()
    print(f"payments: {PaymentsModel.steps_taken} steps, {payments.restarts} service restarts")
    print(f"payments: states seen {dict(PaymentsModel.reached)}")
    assert PaymentsModel.steps_taken >= MIN_STEPS * soak_scale()
