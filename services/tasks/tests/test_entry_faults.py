"""Every fault point of a private entry (claims, browser, payments), killed,
raising and hanging, in the flows a person uses: a task signs in with a
saved login, or pays on the demo shop after the person's yes. The service
owning the point runs armed (NOD_FAULTS); a killed or hung one is started
again where it was. Then the person answers the check or says Continue,
and the model insists on the same entry. What the shop received and what
the services recorded must show the entry went in at most once, nothing
stayed RUNNING, and an entry cut off after it may have reached the site is
UNCERTAIN."""

from dataclasses import dataclass

import pytest

from nod.tasks.v1 import tasks_pb2 as pb
from nodtest import fault_cases
from nodtest.claims import CANARY_CARD, CANARY_PASSWORD
from nodtest.demo import shop_count
from nodtest.processes import Peer

from .conftest import tasks_settings
from .entry_faults import (
    PAY,
    SIGN_IN,
    Flow,
    Restartable,
    Run,
    TasksLives,
    answer_check_or_continue,
    asked_again,
    drive,
    fired,
    killed,
    reconciled,
    restart_until_runner_renews,
    runner_env,
    seed,
    settled,
    states_of,
)
from .model_server import ModelServer
from .support import Peers

pytestmark = pytest.mark.fault_points


@dataclass(frozen=True)
class Expected:
    """What a case leaves: what the shop received, how the entry's claim
    ended ("" when no claim was made), how the entry's step ended in the
    first run, and (paying) how the payment ended."""

    submitted: int
    claim: frozenset[str]
    step: frozenset[str]
    payment: str = ""


def expect(submitted: int, claim: str, step: str, payment: str = "") -> Expected:
    """claim and step: the states allowed, separated by |."""
    return Expected(submitted, frozenset(claim.split("|")), frozenset(step.split("|")), payment)


NOTHING_CLAIMED = expect(0, "", "uncertain|failed")
# Granted, nothing typed: only the claims service's word was lost or late.
GRANT_CUT_OFF = expect(0, "uncertain", "uncertain")
# The card entry started (the payment RUNNING): it ends UNCERTAIN, whatever came after.
CARD_NOT_CLAIMED = expect(0, "", "uncertain", payment="uncertain")
PAID = expect(1, "submitted", "done", payment="submitted")
# Paid, but the payment's end never reached the task: the step can't tell.
PAID_UNTOLD = expect(1, "submitted", "uncertain", payment="submitted")

FLOWS: dict[str, Flow] = {
    "claims.claim_received": SIGN_IN,
    "claims.claim_after_commit": SIGN_IN,
    "claims.secret_unsealed": SIGN_IN,
    "claims.reply_sending": SIGN_IN,
    # Only a claim taking a one-time entry has a transaction of its own:
    # the card's, with its security code.
    "claims.claim_before_commit": PAY,
    "browser.grant_received": SIGN_IN,
    "browser.fields_filled": SIGN_IN,
    "browser.submit_pressed": SIGN_IN,
    "browser.answer_seen": SIGN_IN,
    "browser.submitted_recorded": SIGN_IN,
    "payments.yes_committed": PAY,
    "payments.card_claim": PAY,
    "payments.submitted": PAY,
    "payments.outcome": PAY,
}
EXPECTED: dict[str, Expected] = {
    "claims.claim_received": NOTHING_CLAIMED,
    "claims.claim_after_commit": GRANT_CUT_OFF,
    "claims.secret_unsealed": GRANT_CUT_OFF,
    "claims.reply_sending": GRANT_CUT_OFF,
    "claims.claim_before_commit": CARD_NOT_CLAIMED,
    "browser.grant_received": GRANT_CUT_OFF,
    "browser.fields_filled": GRANT_CUT_OFF,
    "browser.submit_pressed": expect(1, "uncertain", "uncertain"),
    "browser.answer_seen": expect(1, "submitted", "done"),
    "browser.submitted_recorded": expect(1, "submitted", "done"),
    "payments.yes_committed": PAID,
    "payments.card_claim": CARD_NOT_CLAIMED,
    "payments.submitted": PAID_UNTOLD,
    "payments.outcome": PAID_UNTOLD,
}
# Where the action changes the end.
EXPECTED_FOR: dict[tuple[str, str], Expected] = {
    # The guard still hands the page the answer; the click ends SUBMITTED.
    ("browser.submit_pressed", "raise"): expect(1, "submitted", "done"),
    # Killed right after the click: SUBMITTED if its recording got out first.
    ("browser.answer_seen", "kill"): expect(1, "submitted|uncertain", "done|uncertain"),
}
RUNNER = "browser-entry-faults"
CASES = fault_cases.cases(FLOWS)


class System:
    def __init__(
        self, services: dict[str, Restartable], db, model: ModelServer, tasks: TasksLives
    ) -> None:
        self.services = services
        self.db = db
        self.model = model
        self._tasks = tasks

    async def arm(self, point: str, action: str) -> Restartable:
        """The point's service armed; every other one clean."""
        owner = self.services[point.split(".")[0]]
        for other in self.services.values():
            if other is not owner and (other.armed or not other.alive()):
                await self.restart(other)
        await self.restart(owner, f"{point}={action}")
        return owner

    async def restart(self, service: Restartable, armed: str = "") -> None:
        """A peer's next life, once the runner renewed its lease after it;
        the tasks service starts afresh (only ever between runs of a case's
        task)."""
        await restart_until_runner_renews(self.db, RUNNER, service, armed)

    async def fresh_tasks(self):
        return await self._tasks.fresh()


@pytest.fixture(scope="module")
async def system(service_env, tasks_migrated, service_token, tmp_path_factory, db):
    logs = tmp_path_factory.mktemp("entry-faults")
    quiet = {"NOD_CLAIMS_SWEEP_INTERVAL_S": "3600"}
    claims = await Peer("claims", {**service_env, **quiet}, logs / "claims.log").start()
    env = {**service_env, "NOD_CLAIMS_ADDR": claims.address}
    approvals_env = {**env, "NOD_APPROVALS_ALLOWED_NETWORKS": "127.0.0.0/8"}
    approvals = await Peer("approvals", approvals_env, logs / "approvals.log").start()
    payments_env = {**env, "NOD_PAYMENTS_CLAIMS_TIMEOUT_S": "2"}
    payments = await Peer("payments", payments_env, logs / "payments.log").start()
    browser = await Peer("browser", runner_env(env, RUNNER), logs / "browser.log").start()
    peers = Peers(claims, approvals, payments, browser)
    model = await ModelServer().start()
    # The caller's deadlines, short: a hung peer is cut off by them. Not
    # shorter than a loaded machine needs: a browser just restarted took
    # over 3 s to open its first session (Chromium starting) beside the
    # other test processes, the case went on without a page, and its
    # fault point was never reached.
    settings = tasks_settings(
        tasks_migrated,
        service_token,
        peers,
        instance_id="tasks-entry-faults",
        model_url=model.url,
        peer_timeout_s=10.0,
        entry_timeout_s=10.0,
        sweep_interval_s=1.0,
    )
    tasks = TasksLives(settings)
    services = {
        name: Restartable.of(peer, logs)
        for name, peer in (("claims", claims), ("payments", payments), ("browser", browser))
    }
    yield System(services, db, model, tasks)
    await tasks.stop()
    await model.close()
    for restartable in services.values():
        restartable.stop()
    approvals.stop()


@pytest.mark.parametrize(("point", "action"), CASES, ids=[f"{p}={a}" for p, a in CASES])
async def test_a_fault_at_an_entry_point_never_enters_twice(
    point, action, system, shop_site, person, as_person, db
):
    owner = await system.arm(point, action)
    armed = owner.process
    stub = await system.fresh_tasks()
    flow = FLOWS[point]
    claims_addr = system.services["claims"].peer.address
    payments_addr = system.services["payments"].peer.address
    seeded = await seed(claims_addr, payments_addr, person, as_person, shop_site.url)
    run = Run(seeded, shop_site.url)
    system.model.script = flow.first(run)
    started = await stub.StartTask(pb.StartTaskRequest(text=flow.name), metadata=as_person)
    run.task_id = started.task.id

    async def start_again_once_killed() -> None:
        if action == "kill" and owner.process is armed and not owner.alive():
            await system.restart(owner)

    first = await drive(stub, run, until=settled, meanwhile=start_again_once_killed)
    assert fired(armed, point), (
        f"{point} never fired; the task: {pb.TaskState.Name(first.state)} {first.message!r}"
    )
    if action == "kill":
        assert killed(armed)
        # The task may have settled (its peer call failing at once) before
        # a read between the drive's polls saw the death: the runner's next
        # life must release what its last one held all the same.
        await start_again_once_killed()
    elif action == "hang":
        # Still hung: the caller's own deadline ended the call.
        assert armed.process is not None and armed.process.poll() is None
        await system.restart(owner)
    expected = EXPECTED_FOR.get((point, action), EXPECTED[point])
    submitted = shop_count(shop_site, flow.form)
    at_first = await states_of(db, run.task_id)
    entry_step = at_first["steps"][flow.entry_step - 1]
    made = len(at_first["claims"])
    assert submitted == expected.submitted
    assert entry_step in expected.step

    stub = await system.fresh_tasks()
    system.model.script = flow.insisting(run)
    again = asked_again(system.model)
    await answer_check_or_continue(stub, run, first, happened=submitted > 0)
    await drive(stub, run, until=again)
    records = await reconciled(db, run.task_id)

    (entered,) = records["claims"][:made] or [""]
    entered_again = records["claims"][made:]
    assert entered in expected.claim
    if entry_step in ("failed", "not_run"):
        # Nothing was typed: the insisting entry is the first to go in.
        assert shop_count(shop_site, flow.form) <= 1
        assert entered_again in ([], ["submitted"])
    else:
        assert shop_count(shop_site, flow.form) == submitted
        assert entered_again == []
    assert records["payments"] == ([expected.payment] if expected.payment else [])
    for private in (CANARY_PASSWORD, CANARY_CARD):
        assert private not in armed.log_text()
