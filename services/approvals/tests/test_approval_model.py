"""The approvals service against a plain-Python model of its rules (G7, G11,
G12), driven by a hypothesis state machine: Propose (new, resent after a lost
answer, the same request id with other content, a repeat of an earlier
action of the task), Decide (yes, no, a second yes, yes after no, a possible
duplicate's yes with and without its second confirmation), CancelForTask,
disconnecting the account, the demo webhook app answering ok, refusing,
failing or dropping the connection, and restarts of the approvals service
(stop and start with the same instance id). After every step the person's
approvals as listed must be the model's, and the demo app's count of what
it received must be the model's: at most one send per approval, none for a
no, a cancelled approval or a disconnected account.

Replay a failure with NOD_HYPOTHESIS_SEED=<the seed printed first>; a deep
run with NOD_SOAK_SCALE=50 (100,000 steps)."""

import uuid
from dataclasses import dataclass, field

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

from nod.approvals.v1 import approvals_pb2 as pb
from nod.approvals.v1 import approvals_pb2_grpc
from nod_demo.webhook_app import WebhookState, start_webhook_app
from nodkit.client import NodRpcError, call_metadata
from nodtest.history_check import History, Outcome
from nodtest.model_runs import InProcess, Loop, run_machine
from nodtest.soak_report import soak_scale

from .support import approvals_settings, connect_webhook, start_approvals, struct

pytestmark = pytest.mark.state_machine

EXAMPLES = 36
STEPS = 55
MIN_STEPS = 2000
# A service restart costs a boot: about half the examples restart it, at
# most once every this many steps.
STEPS_BETWEEN_RESTARTS = 40
# Long enough for an app that answers, on a loaded machine; inside the
# machine's own 30 s deadline on each call (a yes's Decide waits for its send).
APP_ANSWERS_WITHIN_S = 20.0
# Every rule checks its own reply; the whole list is compared this often,
# and after any rule that changes more than the record it names.
FULL_CHECK_EVERY = 4

PENDING = pb.APPROVAL_STATE_PENDING
APPROVED = pb.APPROVAL_STATE_APPROVED
REJECTED = pb.APPROVAL_STATE_REJECTED
CANCELLED = pb.APPROVAL_STATE_CANCELLED
REFUSED_BECAUSE = {
    APPROVED: "ALREADY_DECIDED_YES",
    REJECTED: "ALREADY_DECIDED_NO",
    CANCELLED: "CANCELLED",
}
# How the demo app answers, and how the execution then ends.
APP_ANSWERS = {
    "ok": pb.EXECUTION_STATE_DONE,
    "reject": pb.EXECUTION_STATE_FAILED,
    "error": pb.EXECUTION_STATE_UNCERTAIN,
    "drop": pb.EXECUTION_STATE_UNCERTAIN,
}
# The executions that sent the action (whatever the app then answered).
SENT_EXECUTIONS = frozenset(APP_ANSWERS.values())
EXECUTION_NAMES = {
    pb.EXECUTION_STATE_UNSPECIFIED: "none",
    pb.EXECUTION_STATE_RUNNING: "running",
    pb.EXECUTION_STATE_DONE: "done",
    pb.EXECUTION_STATE_NOT_RUN: "not_run",
    pb.EXECUTION_STATE_FAILED: "failed",
    pb.EXECUTION_STATE_UNCERTAIN: "uncertain",
}


@dataclass
class ModelApproval:
    request_id: str
    task_id: str
    account_id: str
    parameters: dict
    summary: str
    approval_id: str = ""
    execution_id: str = ""
    state: int = PENDING
    execution: int = pb.EXECUTION_STATE_UNSPECIFIED
    possible_duplicate_of: str = ""

    def request(self, **changes) -> pb.ProposeRequest:
        values = {
            "task_id": self.task_id,
            "account_id": self.account_id,
            "action": "post",
            "parameters": struct(self.parameters),
            "summary": self.summary,
            "request_id": self.request_id,
            **changes,
        }
        return pb.ProposeRequest(**values)


@dataclass
class Run:
    loop: Loop
    approvals: InProcess
    app: WebhookState
    app_url: str
    token: object


@dataclass
class Account:
    id: str
    connected: bool = True


@dataclass
class Sends:
    """What the demo app received, by the approval it was for."""

    seen: int = 0
    by_approval: dict[str, int] = field(default_factory=dict)


class ApprovalsModel(RuleBasedStateMachine):
    run: Run
    steps_taken = 0

    approvals = Bundle("approvals")

    def __init__(self) -> None:
        super().__init__()
        self.person = f"person-{uuid.uuid4().hex[:12]}"
        self.meta = call_metadata(self.run.token, self.person)  # type: ignore[arg-type]
        self.tasks = [f"task-{uuid.uuid4().hex[:8]}" for _ in range(2)]
        self.model: dict[str, ModelApproval] = {}
        self.account = Account("")
        self.accounts: dict[str, Account] = {}
        self.history = History()
        self.may_restart = False
        self.steps_since_restart = 0
        self.sends = Sends(seen=len(self.run.app.received))
        self.steps_since_full_check = 0
        self.mode = "ok"

    @property
    def stub(self) -> approvals_pb2_grpc.ApprovalsServiceStub:
        return self.run.approvals.stub(approvals_pb2_grpc.ApprovalsServiceStub)

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

    def connect(self) -> None:
        account = self.run.loop.run(connect_webhook(self.stub, self.meta, self.run.app_url))
        self.account = Account(account.id)
        self.accounts[account.id] = self.account

    def adopt(self, reply, approval: ModelApproval) -> None:
        """The approval the service answered with is the model's."""
        assert not isinstance(reply, NodRpcError), reply
        got = reply.approval
        if approval.approval_id:
            assert got.id == approval.approval_id
        approval.approval_id = got.id
        if approval.execution_id:
            assert got.execution_id == approval.execution_id
        approval.execution_id = got.execution_id
        self.model[got.id] = approval
        assert (got.state, got.execution_state, got.possible_duplicate_of) == (
            approval.state,
            approval.execution,
            approval.possible_duplicate_of,
        ), got

    def new_approval(self, task: int, parameters: dict | None = None) -> ModelApproval:
        request_id = f"request-{uuid.uuid4().hex[:12]}"
        return ModelApproval(
            request_id=request_id,
            task_id=self.tasks[task],
            account_id=self.account.id,
            parameters=parameters or {"ref": request_id, "note": "hello from nod"},
            summary="post a note to the demo app",
        )

    def first_with(self, approval: ModelApproval) -> str:
        """The earliest approval of the task with this saved action, if any."""
        for earlier in self.model.values():
            if (earlier.task_id, earlier.account_id, earlier.parameters) == (
                approval.task_id,
                approval.account_id,
                approval.parameters,
            ):
                return earlier.approval_id
        return ""

    def propose(self, approval: ModelApproval, lose_first_answer: bool) -> str:
        approval.possible_duplicate_of = self.first_with(approval)
        reply = self.call(self.stub.Propose, approval.request())
        outcome = Outcome.UNKNOWN if lose_first_answer else Outcome.OK
        self.history.operation(approval.request_id, "propose", outcome, scope=approval.task_id)
        if not self.accounts[approval.account_id].connected:
            self.refused(reply, grpc.StatusCode.FAILED_PRECONDITION, "ACCOUNT_DISCONNECTED")
            return ""
        if lose_first_answer:
            reply = self.call(self.stub.Propose, approval.request())
            self.history.operation(approval.request_id, "propose", Outcome.OK)
        self.adopt(reply, approval)
        return approval.approval_id

    # --- rules ----------------------------------------------------------------

    @initialize(may_restart=st.booleans())
    def connected_account(self, may_restart: bool) -> None:
        self.may_restart = may_restart
        self.mode = "ok"
        self.run.app.set_mode(self.mode)
        self.connect()

    @rule(target=approvals, task=st.integers(0, 1), lose_first_answer=st.booleans())
    def propose_new(self, task, lose_first_answer):
        return self.propose(self.new_approval(task), lose_first_answer)

    @rule(target=approvals, approval_id=approvals)
    def propose_the_same_action_again(self, approval_id):
        """A new request for an action the task proposed before: a possible
        duplicate of the first one."""
        if not approval_id:
            return ""
        earlier = self.model[approval_id]
        approval = self.new_approval(self.tasks.index(earlier.task_id), dict(earlier.parameters))
        approval.account_id = earlier.account_id
        return self.propose(approval, lose_first_answer=False)

    @rule(approval_id=approvals)
    def propose_resent(self, approval_id):
        if not approval_id:
            return
        approval = self.model[approval_id]
        reply = self.call(self.stub.Propose, approval.request())
        self.history.operation(approval.request_id, "propose", Outcome.OK)
        self.adopt(reply, approval)

    @rule(approval_id=approvals)
    def propose_other_content_under_the_same_request_id(self, approval_id):
        if not approval_id:
            return
        approval = self.model[approval_id]
        reply = self.call(self.stub.Propose, approval.request(summary="something else entirely"))
        self.history.operation(approval.request_id, "propose", Outcome.FAILED)
        self.refused(reply, grpc.StatusCode.ALREADY_EXISTS, "REQUEST_ID_REUSED")

    @rule(approval_id=approvals, yes=st.booleans(), confirm_duplicate=st.booleans())
    def decide(self, approval_id, yes, confirm_duplicate):
        if not approval_id:
            return
        approval = self.model[approval_id]
        decision = pb.DECISION_YES if yes else pb.DECISION_NO
        request = pb.DecideRequest(
            approval_id=approval_id, decision=decision, confirm_duplicate=confirm_duplicate
        )
        reply = self.call(self.stub.Decide, request)
        self.history.operation(approval_id, "decide", Outcome.OK, scope=approval.task_id)
        wanted = APPROVED if yes else REJECTED
        if approval.state == PENDING:
            if yes and approval.possible_duplicate_of and not confirm_duplicate:
                self.refused(
                    reply, grpc.StatusCode.FAILED_PRECONDITION, "DUPLICATE_NEEDS_CONFIRMATION"
                )
                return
            approval.state = wanted
            if yes:
                account_connected = approval.account_id == self.account.id and (
                    self.account.connected
                )
                approval.execution = (
                    APP_ANSWERS[self.mode] if account_connected else pb.EXECUTION_STATE_NOT_RUN
                )
        elif approval.state != wanted:
            self.refused(
                reply, grpc.StatusCode.FAILED_PRECONDITION, REFUSED_BECAUSE[approval.state]
            )
            return
        self.adopt(reply, approval)

    @rule(task=st.integers(0, 1))
    def cancel_for_task(self, task):
        request = pb.CancelForTaskRequest(
            task_id=self.tasks[task], reason="the person pressed Stop"
        )
        reply = self.call(self.stub.CancelForTask, request)
        assert not isinstance(reply, NodRpcError), reply
        pending = {
            a.approval_id
            for a in self.model.values()
            if a.task_id == self.tasks[task] and a.state == PENDING
        }
        assert {a.id for a in reply.approvals} == pending
        for approval_id in pending:
            self.model[approval_id].state = CANCELLED
        self.steps_since_full_check = FULL_CHECK_EVERY

    @precondition(lambda self: self.account.connected)
    @rule()
    def disconnect_the_account(self):
        request = pb.DisconnectAccountRequest(account_id=self.account.id)
        assert not isinstance(self.call(self.stub.DisconnectAccount, request), NodRpcError)
        self.account.connected = False
        self.steps_since_full_check = FULL_CHECK_EVERY

    @precondition(lambda self: not self.account.connected)
    @rule()
    def connect_another_account(self):
        self.connect()

    @rule(mode=st.sampled_from(sorted(APP_ANSWERS)))
    def the_app_answers(self, mode):
        self.mode = mode
        self.run.app.set_mode(mode)

    @precondition(
        lambda self: self.may_restart and self.steps_since_restart >= STEPS_BETWEEN_RESTARTS
    )
    @rule()
    def approvals_service_restarts(self):
        self.steps_since_restart = 0
        self.run.loop.run(self.run.approvals.restart())
        self.steps_since_full_check = FULL_CHECK_EVERY

    # --- what must always hold -----------------------------------------------

    def count_sends(self) -> None:
        """Each request the demo app received since the last look, by the
        approval whose one execution it carries (its Idempotency-Key)."""
        execution_ids = {a.execution_id: a.approval_id for a in self.model.values()}
        for entry in self.run.app.received[self.sends.seen :]:
            approval_id = execution_ids.get(entry["idempotency_key"] or "", "")
            assert approval_id, f"the app received what no yes of this person ran: {entry}"
            self.history.side_effect(approval_id, "webhook received")
            self.sends.by_approval[approval_id] = self.sends.by_approval.get(approval_id, 0) + 1
        self.sends.seen = len(self.run.app.received)

    def service_lists_the_model(self) -> None:
        self.steps_since_full_check = 0
        listed = self.call(self.stub.ListApprovals, pb.ListApprovalsRequest(page_size=500))
        assert not isinstance(listed, NodRpcError), listed
        seen = {a.id: a for a in listed.approvals}
        assert seen.keys() == self.model.keys()
        for approval_id, approval in self.model.items():
            actual = seen[approval_id]
            self.history.seen(approval_id, EXECUTION_NAMES[actual.execution_state])
            assert (
                actual.state,
                actual.execution_state,
                actual.possible_duplicate_of,
                actual.execution_id,
            ) == (
                approval.state,
                approval.execution,
                approval.possible_duplicate_of,
                approval.execution_id,
            ), approval_id

    @invariant()
    def service_and_app_match_the_model(self):
        ApprovalsModel.steps_taken += 1
        self.steps_since_restart += 1
        self.steps_since_full_check += 1
        self.count_sends()
        reached_the_app = {
            a.approval_id for a in self.model.values() if a.execution in SENT_EXECUTIONS
        }
        assert self.sends.by_approval == dict.fromkeys(reached_the_app, 1)
        if self.steps_since_full_check >= FULL_CHECK_EVERY:
            self.service_lists_the_model()

    def teardown(self):
        self.service_lists_the_model()
        self.history.assert_kept()


# A deep run (make soak) takes NOD_SOAK_SCALE times as long as make test's.
@pytest.mark.timeout(600 * soak_scale())
def test_approvals_follow_their_model(approvals_migrated, service_token, vault_key, log_tee):
    loop = Loop()
    # The app answers every request it gets (none of its modes hangs), so
    # the model expects each yes's end from the mode alone. A send that
    # waited out a short timeout is UNCERTAIN, rightly: a ×50 run beside
    # other heavy tests once waited 3 s for the app in this very process.
    settings = approvals_settings(
        approvals_migrated,
        service_token,
        vault_key,
        instance_id="approvals-model",
        webhook_timeout_s=APP_ANSWERS_WITHIN_S,
    )
    runner, url, app = loop.run(start_webhook_app())

    async def start():
        server = await start_approvals(settings)
        # The model opens its own channel; this one is not needed.
        await server.channel.close()
        return server.running

    approvals = InProcess(start)
    loop.run(approvals.start())
    ApprovalsModel.run = Run(loop, approvals, app, f"{url}/hooks/notes", service_token)
    ApprovalsModel.steps_taken = 0
    try:
        run_machine(
            "approvals",
            ApprovalsModel,
            examples=EXAMPLES,
            steps=STEPS,
            min_steps=MIN_STEPS,
            steps_done=lambda: ApprovalsModel.steps_taken,
        )
    finally:
        loop.run(approvals.stop())
        loop.run(runner.cleanup())
        loop.close()
    print(f"approvals: {ApprovalsModel.steps_taken} steps, {approvals.restarts} service restarts")
    assert ApprovalsModel.steps_taken >= MIN_STEPS * soak_scale()
