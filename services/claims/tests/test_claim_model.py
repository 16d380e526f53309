"""The claims service against a plain-Python model of its rules (G2, G3, G12),
driven by a hypothesis state machine: new claims and resends (the same
request again, by either runner, or after its first answer was lost), the
same id with other parameters, MarkSubmitted and MarkUncertain by the holder
and by another runner, RecordCheck, a runner's restart (ReleaseHolder) and
its lease renewals, and restarts of the claims service itself (stop and
start with the same instance id: the boot reconcile, which must leave a live
runner's claims alone). After every step the person's claims as the service
lists them must be the model's; every grant is a side effect in the history,
which must show one per operation id and no UNCERTAIN claim ever changing.

Replay a failure with NOD_HYPOTHESIS_SEED=<the seed printed first>; a deep
run with NOD_SOAK_SCALE=50 (100,000 steps)."""

import uuid
from dataclasses import dataclass

import grpc
import pytest
from hypothesis import strategies as st
from hypothesis.stateful import (
    Bundle,
    RuleBasedStateMachine,
    consumes,
    initialize,
    invariant,
    precondition,
    rule,
)

from nod.claims.v1 import claims_pb2 as pb
from nod.claims.v1 import claims_pb2_grpc
from nod_claims.wiring import build
from nodkit import service
from nodkit.client import NodRpcError, call_metadata
from nodtest.claims import CANARY_CARD, CANARY_PASSWORD, ORIGIN, op_id, put_card, put_login
from nodtest.history_check import History, Outcome
from nodtest.model_runs import InProcess, Loop, run_machine
from nodtest.soak_report import soak_scale

from .conftest import claims_settings

pytestmark = pytest.mark.state_machine

EXAMPLES = 22
STEPS = 90
MIN_STEPS = 2000
# Every rule checks its own reply; the whole list is compared this often,
# and after any rule that changes more than the claim it names.
FULL_CHECK_EVERY = 3
# A service restart costs a boot; a few per example are plenty.
# A service restart costs a boot: about half the examples restart it, at
# most once every this many steps.
STEPS_BETWEEN_RESTARTS = 40

STATE_NAMES = {
    pb.CLAIM_STATE_RUNNING: "running",
    pb.CLAIM_STATE_SUBMITTED: "submitted",
    pb.CLAIM_STATE_UNCERTAIN: "uncertain",
}
CHECKS = [pb.CHECK_RESULT_WORKED, pb.CHECK_RESULT_DID_NOT_WORK, pb.CHECK_RESULT_UNCLEAR]


@dataclass
class ModelClaim:
    """What the rules say one operation's claim is."""

    operation_id: str
    kind: int
    item_id: str
    task_id: str
    holder: str
    state: int = pb.CLAIM_STATE_RUNNING
    check: int = pb.CHECK_RESULT_UNSPECIFIED
    claim_id: str = ""

    def request(self, holder: str | None = None, task_id: str | None = None) -> pb.ClaimRequest:
        return pb.ClaimRequest(
            operation_id=self.operation_id,
            kind=self.kind,
            item_id=self.item_id,
            origin=ORIGIN,
            task_id=task_id or self.task_id,
            holder=holder or self.holder,
        )

    @property
    def final(self) -> bool:
        return self.state != pb.CLAIM_STATE_RUNNING


@dataclass(frozen=True)
class Run:
    """What every example of one run shares: the loop and the service."""

    loop: Loop
    claims: InProcess
    token: object


class ClaimsModel(RuleBasedStateMachine):
    run: Run
    steps_taken = 0

    claims = Bundle("claims")

    def __init__(self) -> None:
        super().__init__()
        self.person = f"person-{uuid.uuid4().hex[:12]}"
        self.meta = call_metadata(self.run.token, self.person)  # type: ignore[arg-type]
        self.holders = [f"runner-a-{uuid.uuid4().hex[:6]}", f"runner-b-{uuid.uuid4().hex[:6]}"]
        self.model: dict[str, ModelClaim] = {}
        self.history = History()
        self.may_restart = False
        self.steps_since_restart = 0
        self.steps_since_full_check = 0
        self.items: dict[int, str] = {}

    # --- plumbing -------------------------------------------------------------

    @property
    def stub(self) -> claims_pb2_grpc.ClaimsServiceStub:
        return self.run.claims.stub(claims_pb2_grpc.ClaimsServiceStub)

    @property
    def vault(self) -> claims_pb2_grpc.VaultServiceStub:
        return self.run.claims.stub(claims_pb2_grpc.VaultServiceStub)

    def call(self, method, request):
        """The reply, or the refusal as a NodRpcError (never raised)."""

        async def go():
            try:
                return await method(request, metadata=self.meta, timeout=30)
            except grpc.aio.AioRpcError as raw:
                return NodRpcError(raw)

        return self.run.loop.run(go())

    def refused(self, answer, code: grpc.StatusCode, reason: str) -> None:
        assert isinstance(answer, NodRpcError), f"expected {reason}, got {answer}"
        assert (answer.code, answer.reason) == (code, reason), answer

    def one_time_entry(self, task_id: str) -> str:
        request = pb.PutPrivateEntryRequest(
            task_id=task_id,
            kind=pb.ENTRY_KIND_ONE_TIME_CODE,
            fields={"code": "492817"},
            origin=ORIGIN,
        )
        return self.call(self.vault.PutPrivateEntry, request).id

    def new_claim(self, kind: int, holder: str, task_id: str) -> ModelClaim:
        item_id = self.one_time_entry(task_id) if kind == pb.ENTRY_KIND_ONE_TIME_CODE else ""
        claim = ModelClaim(
            operation_id=op_id(),
            kind=kind,
            item_id=item_id or self.items[kind],
            task_id=task_id,
            holder=holder,
        )
        if kind == pb.ENTRY_KIND_CARD:
            # As the payments service binds a card entry when it starts.
            bind = pb.BindCardEntryRequest(
                operation_id=claim.operation_id,
                item_id=claim.item_id,
                task_id=task_id,
                merchant_origin=ORIGIN,
            )
            assert not isinstance(self.call(self.stub.BindCardEntry, bind), NodRpcError)
        return claim

    def expect_grant(self, reply, claim: ModelClaim) -> None:
        assert not isinstance(reply, NodRpcError), reply
        assert reply.granted and reply.claim.state == pb.CLAIM_STATE_RUNNING
        expected = {
            pb.ENTRY_KIND_SAVED_LOGIN: ("password", CANARY_PASSWORD),
            pb.ENTRY_KIND_CARD: ("number", CANARY_CARD),
            pb.ENTRY_KIND_ONE_TIME_CODE: ("code", "492817"),
        }[claim.kind]
        assert reply.secret_fields[expected[0]] == expected[1]
        self.history.side_effect(claim.operation_id, "granted")

    def expect_existing(self, reply, claim: ModelClaim) -> None:
        """A resend: the existing claim and its state, never the value."""
        assert not isinstance(reply, NodRpcError), reply
        assert not reply.granted and not reply.secret_fields
        if claim.claim_id:
            assert reply.claim.id == claim.claim_id
        claim.claim_id = reply.claim.id
        assert (reply.claim.state, reply.claim.check) == (claim.state, claim.check)

    # --- rules ----------------------------------------------------------------

    @initialize(may_restart=st.booleans())
    def saved_items(self, may_restart: bool) -> None:
        self.may_restart = may_restart

        async def put():
            login = await put_login(self.vault, self.meta)
            card = await put_card(self.vault, self.meta)
            for holder in self.holders:
                await self.stub.RenewHolder(
                    pb.RenewHolderRequest(holder=holder), metadata=self.meta
                )
            return login.id, card.id

        login_id, card_id = self.run.loop.run(put())
        self.items = {pb.ENTRY_KIND_SAVED_LOGIN: login_id, pb.ENTRY_KIND_CARD: card_id}

    @rule(
        target=claims,
        kind=st.sampled_from(
            [pb.ENTRY_KIND_SAVED_LOGIN, pb.ENTRY_KIND_CARD, pb.ENTRY_KIND_ONE_TIME_CODE]
        ),
        holder=st.integers(0, 1),
        task=st.sampled_from(["task-1", "task-2"]),
    )
    def claim_new(self, kind, holder, task):
        claim = self.new_claim(kind, self.holders[holder], task)
        reply = self.call(self.stub.Claim, claim.request())
        self.history.operation(claim.operation_id, "claim", Outcome.OK)
        self.expect_grant(reply, claim)
        claim.claim_id = reply.claim.id
        self.model[claim.operation_id] = claim
        return claim.operation_id

    @rule(
        target=claims,
        kind=st.sampled_from([pb.ENTRY_KIND_SAVED_LOGIN, pb.ENTRY_KIND_ONE_TIME_CODE]),
        holder=st.integers(0, 1),
    )
    def claim_with_a_lost_answer(self, kind, holder):
        """The runner never hears the grant and asks again: the value was
        released once, and the resend learns the claim without it."""
        claim = self.new_claim(kind, self.holders[holder], "task-1")
        lost = self.call(self.stub.Claim, claim.request())
        self.history.operation(claim.operation_id, "claim", Outcome.UNKNOWN)
        if isinstance(lost, NodRpcError):
            raise AssertionError(f"a first claim was refused: {lost}")
        if lost.granted and lost.secret_fields:
            self.history.side_effect(claim.operation_id, "granted")
        self.model[claim.operation_id] = claim
        again = self.call(self.stub.Claim, claim.request())
        self.history.operation(claim.operation_id, "claim", Outcome.OK)
        self.expect_existing(again, claim)
        return claim.operation_id

    @rule(operation_id=claims, other_runner=st.booleans())
    def claim_resent(self, operation_id, other_runner):
        claim = self.model[operation_id]
        holder = self.holders[1 - self.holders.index(claim.holder)] if other_runner else None
        reply = self.call(self.stub.Claim, claim.request(holder=holder))
        self.history.operation(operation_id, "claim", Outcome.OK)
        self.expect_existing(reply, claim)

    @rule(operation_id=claims)
    def claim_reusing_the_id(self, operation_id):
        claim = self.model[operation_id]
        reply = self.call(self.stub.Claim, claim.request(task_id=claim.task_id + "-other"))
        self.history.operation(operation_id, "claim", Outcome.FAILED)
        self.refused(reply, grpc.StatusCode.ALREADY_EXISTS, "OPERATION_ID_REUSED")

    def finish(self, claim: ModelClaim, target: int, by_holder: bool) -> None:
        holder = claim.holder if by_holder else "runner-stranger"
        if target == pb.CLAIM_STATE_SUBMITTED:
            request = pb.MarkSubmittedRequest(claim_id=claim.claim_id, holder=holder)
            reply = self.call(self.stub.MarkSubmitted, request)
        else:
            request = pb.MarkUncertainRequest(claim_id=claim.claim_id, holder=holder, reason="cut")
            reply = self.call(self.stub.MarkUncertain, request)
        if not by_holder:
            self.refused(reply, grpc.StatusCode.FAILED_PRECONDITION, "NOT_HOLDER")
        elif claim.state in (pb.CLAIM_STATE_RUNNING, target):
            assert not isinstance(reply, NodRpcError), reply
            claim.state = target
            assert reply.claim.state == target
        else:
            self.refused(reply, grpc.StatusCode.FAILED_PRECONDITION, "CLAIM_FINAL")

    @rule(operation_id=claims, by_holder=st.booleans())
    def mark_submitted(self, operation_id, by_holder):
        self.finish(self.model[operation_id], pb.CLAIM_STATE_SUBMITTED, by_holder)

    @rule(operation_id=claims, by_holder=st.booleans())
    def mark_uncertain(self, operation_id, by_holder):
        self.finish(self.model[operation_id], pb.CLAIM_STATE_UNCERTAIN, by_holder)

    @rule(operation_id=claims, check=st.sampled_from(CHECKS))
    def record_check(self, operation_id, check):
        claim = self.model[operation_id]
        request = pb.RecordCheckRequest(claim_id=claim.claim_id, check=check)
        reply = self.call(self.stub.RecordCheck, request)
        if claim.state != pb.CLAIM_STATE_SUBMITTED:
            self.refused(reply, grpc.StatusCode.FAILED_PRECONDITION, "NOT_SUBMITTED")
        elif claim.check in (pb.CHECK_RESULT_UNSPECIFIED, check):
            assert not isinstance(reply, NodRpcError), reply
            claim.check = check
            assert reply.claim.check == check
        else:
            self.refused(reply, grpc.StatusCode.FAILED_PRECONDITION, "CHECK_ALREADY_RECORDED")

    def running_of(self, holder: str) -> list[ModelClaim]:
        return [c for c in self.model.values() if c.holder == holder and not c.final]

    @rule(holder=st.integers(0, 1))
    def renew_holder(self, holder):
        reply = self.call(self.stub.RenewHolder, pb.RenewHolderRequest(holder=self.holders[holder]))
        assert reply.running_claims == len(self.running_of(self.holders[holder]))

    @rule(holder=st.integers(0, 1))
    def runner_restarts(self, holder):
        """A runner boots again: what it was entering may have reached the
        site, so its RUNNING claims end UNCERTAIN; it goes on with new ones."""
        name = self.holders[holder]
        running = self.running_of(name)
        request = pb.ReleaseHolderRequest(holder=name, reason="runner restarted")
        reply = self.call(self.stub.ReleaseHolder, request)
        assert reply.released == len(running)
        for claim in running:
            claim.state = pb.CLAIM_STATE_UNCERTAIN
        self.steps_since_full_check = FULL_CHECK_EVERY

    @precondition(
        lambda self: self.may_restart and self.steps_since_restart >= STEPS_BETWEEN_RESTARTS
    )
    @rule()
    def claims_service_restarts(self):
        """Stop and start with the same instance id: the boot reconcile ends
        only claims of runners whose lease lapsed, and these two are live."""
        self.steps_since_restart = 0
        self.run.loop.run(self.run.claims.restart())
        self.steps_since_full_check = FULL_CHECK_EVERY

    @rule(operation_id=consumes(claims))
    def forget(self, operation_id):
        """Lets the bundle shrink; the model keeps the claim and checks it."""

    # --- what must always hold -----------------------------------------------

    @invariant()
    def service_matches_the_model(self):
        ClaimsModel.steps_taken += 1
        self.steps_since_restart += 1
        self.steps_since_full_check += 1
        if self.steps_since_full_check >= FULL_CHECK_EVERY:
            self.service_lists_the_model()

    def service_lists_the_model(self) -> None:
        self.steps_since_full_check = 0
        listed = self.call(self.stub.ListClaims, pb.ListClaimsRequest(page_size=500))
        assert not isinstance(listed, NodRpcError), listed
        seen = {c.operation_id: c for c in listed.claims}
        assert seen.keys() == self.model.keys()
        for operation_id, claim in self.model.items():
            actual = seen[operation_id]
            self.history.seen(actual.id, STATE_NAMES[actual.state])
            assert (actual.id, actual.state, actual.check, actual.holder) == (
                claim.claim_id,
                claim.state,
                claim.check,
                claim.holder,
            ), operation_id

    def teardown(self):
        self.service_lists_the_model()
        self.history.assert_kept()


# A deep run (make soak) takes NOD_SOAK_SCALE times as long as make test's.
@pytest.mark.timeout(600 * soak_scale())
def test_claims_follow_their_model(claims_migrated, service_token, vault_key, log_tee):
    loop = Loop()
    settings = claims_settings(
        claims_migrated,
        service_token,
        vault_key,
        instance_id="claims-model",
        sweep_interval_s=3600,
        lease_ttl_s=3600,
        max_running_s=3600,
    )

    async def start():
        return await service.start(await build(settings), settings, listen="127.0.0.1:0")

    claims = InProcess(start)
    loop.run(claims.start())
    ClaimsModel.run = Run(loop, claims, service_token)
    ClaimsModel.steps_taken = 0
    try:
        run_machine(
            "claims",
            ClaimsModel,
            examples=EXAMPLES,
            steps=STEPS,
            min_steps=MIN_STEPS,
            steps_done=lambda: ClaimsModel.steps_taken,
        )
    finally:
        loop.run(claims.stop())
        loop.close()
    print(f"claims: {ClaimsModel.steps_taken} steps, {claims.restarts} service restarts")
    assert ClaimsModel.steps_taken >= MIN_STEPS * soak_scale()
