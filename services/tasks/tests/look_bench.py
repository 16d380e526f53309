"""The look bench (G14, issue 32 item 4): `make look-bench`, not part of
`make test` (pytest does not collect this module by its name).

A cut-off is injected at each boundary of a sign-in, a payment and an app
action, on the demo shop and the demo webhook app: every fault point on the
flow's path, killed and raising in the service that owns it (the entry fault
harness, entry_faults.py: claims, approvals, payments and the browser runner
as restartable processes armed with NOD_FAULTS), and the stand-ins' own
modes (the shop holding or dropping a form, the app dropping, holding or
answering late). Every cut runs LOOK_BENCH_ROUNDS times (2 unless set).

For each case whose task ends up with an UNCERTAIN step, the truth is read
from the outside world first (did the shop accept the sign-in, place the
order; did the app receive a request with this execution's idempotency
key), the outside counters are noted, then the person's LookForMe runs, and
nothing outside may have changed after it. Only FOUND counts as resolved:
a look that sees no sign of a thing is no proof it didn't happen. FOUND
where the thing did not happen is a WRONG finding.

The table is printed at the end and written to var/look-bench.txt; a case
with a wrong finding or anything sent by its look fails (the run exits
non-zero). LOOK_BENCH_CASES=part,part runs only the cuts whose names hold
one of the parts."""

import asyncio
import os
import pathlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import grpc
import pytest

from nod.approvals.v1 import approvals_pb2 as approvals
from nod.approvals.v1 import approvals_pb2_grpc
from nod.tasks.v1 import tasks_pb2 as pb
from nodkit.client import open_channel
from nodtest.demo import SHOP_USERNAME
from nodtest.processes import Peer

from .conftest import tasks_settings
from .entry_faults import (
    FINISH,
    PERSON_TIMEOUT_S,
    SIGN_IN,
    Flow,
    Restartable,
    Run,
    TasksLives,
    _later,
    _pay,
    _saved_login,
    answer_what_is_asked,
    fired,
    killed,
    reconciled,
    restart_until_runner_renews,
    runner_env,
    seed,
    settled,
    states_of,
)
from .model_server import ModelServer, tool_call
from .support import Peers

RUNNER = "browser-look-bench"
ROUNDS = int(os.environ.get("LOOK_BENCH_ROUNDS", "2"))
TABLE = pathlib.Path(os.environ.get("LOOK_BENCH_TABLE", "var/look-bench.txt"))
SIGN_IN_KIND, PAYMENT_KIND, APP_KIND = "sign-in", "payment", "app action"
KINDS = (SIGN_IN_KIND, PAYMENT_KIND, APP_KIND)

# Signed in first, so the order is the person's and their order list shows it
# (the shop lists a signed-in visitor's orders only; a guest's are nowhere).
PAY_SIGNED_IN = Flow(
    "sign in, then pay",
    "checkout",
    6,
    first=lambda run: [
        tool_call("navigate", {"url": f"{run.shop_url}/login"}),
        tool_call("enter_saved_login", _saved_login(run)),
        tool_call("navigate", {"url": f"{run.shop_url}/checkout"}),
        tool_call(
            "request_payment",
            {
                "merchant_origin": run.shop_url,
                "amount_minor": 2500,
                "currency": "EUR",
                "description": "Desk lamp",
                "card_id": run.person.card_id,
            },
        ),
        tool_call(
            "ask_private_form",
            {"kind": "security_code", "reason": "The checkout asks for the security code."},
        ),
        _later(lambda: tool_call("pay", _pay(run))),
        FINISH,
    ],
    insisting=lambda run: [FINISH],
)


def _note(run: "BenchRun") -> list[Any]:
    return [
        tool_call(
            "propose_app_action",
            {
                "account_id": run.account_id,
                "action": "post",
                "parameters": {"note": "hello from nod"},
                "summary": "Send the note to the demo app",
            },
        ),
        FINISH,
    ]


@dataclass(frozen=True)
class Cut:
    """Where a case is cut off: a fault point (`point=action[#hit]` armed in
    its service) or a stand-in's mode (`shop.FORM` / `app`)."""

    kind: str
    where: str
    action: str
    hit: int = 1

    @property
    def name(self) -> str:
        hit = f"#{self.hit}" if self.hit > 1 else ""
        return f"{self.kind}:{self.where}={self.action}{hit}"

    @property
    def fault(self) -> bool:
        return not (self.where == "app" or self.where.startswith("shop."))


SERVICE_ACTIONS = ("kill", "raise")
SIGN_IN_POINTS = (
    "claims.claim_received",
    "claims.claim_after_commit",
    "claims.secret_unsealed",
    "claims.reply_sending",
    "browser.grant_received",
    "browser.fields_filled",
    "browser.submit_pressed",
    "browser.answer_seen",
    "browser.submitted_recorded",
)
# The payment's entry is the flow's second (the sign-in's is the first): the
# points both pass fire at their second pass.
PAYMENT_POINTS = (
    ("claims.claim_received", 2),
    ("claims.claim_before_commit", 1),
    ("claims.secret_unsealed", 2),
    ("claims.reply_sending", 2),
    ("browser.grant_received", 2),
    ("browser.fields_filled", 2),
    ("browser.submit_pressed", 2),
    ("browser.answer_seen", 2),
    ("browser.submitted_recorded", 2),
    ("payments.yes_committed", 1),
    ("payments.card_claim", 1),
    ("payments.submitted", 1),
    ("payments.outcome", 1),
)
APP_POINTS = (
    "approvals.decision_committed",
    "approvals.execution_running",
    "approvals.account_rechecked",
    "approvals.request_sent",
    "approvals.answer_received",
    "approvals.end_recorded",
)
# The stand-ins' modes: held and let go after the browser gave up (the site
# answers late), held for good, dropped after reading the body; the app
# dropping, holding, answering past the connector's budget.
SHOP_MODES = ("hold-then-release", "hold", "drop")
APP_MODES = ("drop", "hang", "slow")


def all_cuts() -> list[Cut]:
    cuts = [Cut(SIGN_IN_KIND, p, a) for p in SIGN_IN_POINTS for a in SERVICE_ACTIONS]
    cuts += [Cut(SIGN_IN_KIND, "shop.login", m) for m in SHOP_MODES]
    cuts += [Cut(PAYMENT_KIND, p, a, h) for p, h in PAYMENT_POINTS for a in SERVICE_ACTIONS]
    cuts += [Cut(PAYMENT_KIND, "shop.checkout", m) for m in SHOP_MODES]
    cuts += [Cut(APP_KIND, p, a) for p in APP_POINTS for a in SERVICE_ACTIONS]
    cuts += [Cut(APP_KIND, "app", m) for m in APP_MODES]
    return cuts


# LOOK_BENCH_CASES=part,part runs only the cuts whose names hold one of the parts.
ONLY = [part for part in os.environ.get("LOOK_BENCH_CASES", "").split(",") if part]
CASES = [
    (n, cut)
    for n in range(1, ROUNDS + 1)
    for cut in all_cuts()
    if not ONLY or any(part in cut.name for part in ONLY)
]


@dataclass
class Outcome:
    """One case as the table counts it."""

    cut: Cut
    fired: bool = True
    # The kind of the uncertain step looked at ("" when none was uncertain).
    looked_kind: str = ""
    happened: bool | None = None
    finding: str = ""
    sentence: str = ""
    sent_by_look: list[str] = field(default_factory=list)
    error: str = ""
    note: str = ""


OUTCOMES: list[Outcome] = []


@dataclass
class BenchRun(Run):
    account_id: str = ""
    approval_id: str = ""


class System:
    """The entry fault harness's system, with approvals restartable too."""

    def __init__(self, services: dict[str, Restartable], db, model, tasks: TasksLives) -> None:
        self.services = services
        self.db = db
        self.model = model
        self._tasks = tasks

    async def arm(self, cut: Cut) -> Restartable | None:
        owner = self.services[cut.where.split(".")[0]] if cut.fault else None
        for other in self.services.values():
            if other is not owner and (other.armed or not other.alive()):
                await self.restart(other)
        if owner is not None:
            hit = f"#{cut.hit}" if cut.hit > 1 else ""
            await self.restart(owner, f"{cut.where}={cut.action}{hit}")
        return owner

    async def restart(self, service: Restartable, armed: str = "") -> None:
        await restart_until_runner_renews(self.db, RUNNER, service, armed)

    async def fresh_tasks(self):
        return await self._tasks.fresh()


@pytest.fixture(scope="module")
async def system(service_env, tasks_migrated, service_token, tmp_path_factory, db):
    logs = tmp_path_factory.mktemp("look-bench")
    quiet = {"NOD_CLAIMS_SWEEP_INTERVAL_S": "3600"}
    claims = await Peer("claims", {**service_env, **quiet}, logs / "claims.log").start()
    env = {**service_env, "NOD_CLAIMS_ADDR": claims.address}
    approvals_env = {
        **env,
        "NOD_APPROVALS_ALLOWED_NETWORKS": "127.0.0.0/8",
        # A held or slow app is cut off by the connector's budget; the
        # execution's own deadline ends what hangs around it.
        "NOD_APPROVALS_WEBHOOK_TIMEOUT_S": "2",
        "NOD_APPROVALS_EXECUTION_DEADLINE_S": "5",
    }
    approvals_peer = await Peer("approvals", approvals_env, logs / "approvals.log").start()
    payments_env = {**env, "NOD_PAYMENTS_CLAIMS_TIMEOUT_S": "2"}
    payments = await Peer("payments", payments_env, logs / "payments.log").start()
    browser = await Peer("browser", runner_env(env, RUNNER), logs / "browser.log").start()
    peers = Peers(claims, approvals_peer, payments, browser)
    model = await ModelServer().start()
    settings = tasks_settings(
        tasks_migrated,
        service_token,
        peers,
        instance_id="tasks-look-bench",
        model_url=model.url,
        peer_timeout_s=10.0,
        entry_timeout_s=10.0,
        sweep_interval_s=1.0,
    )
    tasks = TasksLives(settings)
    services = {
        name: Restartable.of(peer, logs)
        for name, peer in (
            ("claims", claims),
            ("approvals", approvals_peer),
            ("payments", payments),
            ("browser", browser),
        )
    }
    yield System(services, db, model, tasks)
    await tasks.stop()
    await model.close()
    for restartable in services.values():
        restartable.stop()
    write_table(table(OUTCOMES))


def write_table(report: str) -> None:
    TABLE.parent.mkdir(parents=True, exist_ok=True)
    TABLE.write_text(report)
    print("\n" + report)


async def _approvals(system: System, method: str, request, **kw) -> Any:
    """One call on a channel of its own: the process behind the address
    may have been restarted since."""
    channel = open_channel(system.services["approvals"].peer.address)
    try:
        return await getattr(approvals_pb2_grpc.ApprovalsServiceStub(channel), method)(
            request, **kw
        )
    finally:
        await channel.close()


async def connect_app(system: System, meta, app_url: str) -> str:
    settings = {"url": f"{app_url}/hooks/nod", "status_url": f"{app_url}/"}
    request = approvals.ConnectAccountRequest(
        account=approvals.Account(app="webhook", label="Demo app", settings=settings)
    )
    reply = await _approvals(system, "ConnectAccount", request, metadata=meta)
    return reply.account.id


async def answer(system: System, stub, run: BenchRun, task: pb.Task) -> None:
    """The person's part: a yes to the app action, else as the entry flows."""
    if task.state != pb.TASK_STATE_WAITING or task.wait.id in run.answered:
        return
    if task.wait.kind == pb.WAIT_KIND_DECISION:
        run.answered.add(task.wait.id)
        run.approval_id = task.wait.id
        request = approvals.DecideRequest(approval_id=task.wait.id, decision=approvals.DECISION_YES)
        try:
            await _approvals(
                system, "Decide", request, metadata=run.person.meta, timeout=PERSON_TIMEOUT_S
            )
        except grpc.aio.AioRpcError:
            pass  # the yes got no answer: the task reads the approval
        return
    await answer_what_is_asked(stub, run, task)


async def drive(
    system: System,
    stub,
    run: BenchRun,
    until: Callable[[pb.Task], bool],
    meanwhile: Callable[[], Any],
    timeout_s: float = 90.0,
) -> pb.Task:
    deadline = asyncio.get_running_loop().time() + timeout_s
    while True:
        await meanwhile()
        try:
            request = pb.GetTaskRequest(task_id=run.task_id)
            task = (await stub.GetTask(request, metadata=run.person.meta)).task
        except grpc.aio.AioRpcError:
            task = None
        if task is not None:
            if until(task):
                return task
            await answer(system, stub, run, task)
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"task {run.task_id} never settled: {task}")
        await asyncio.sleep(0.05)


def kind_of(step: pb.Step) -> str:
    if step.approval_id:
        return APP_KIND
    if step.payment_id:
        return PAYMENT_KIND
    if step.tool in ("enter_saved_login", "enter_from_private_form"):
        return SIGN_IN_KIND
    return step.tool


async def uncertain_steps(stub, run: BenchRun) -> list[pb.Step]:
    reply = await stub.ListTaskEvents(
        pb.ListTaskEventsRequest(task_id=run.task_id), metadata=run.person.meta
    )
    return [s for s in reply.steps if s.state == pb.STEP_STATE_UNCERTAIN]


async def truth(system: System, kind: str, step: pb.Step, run: BenchRun, shop, app) -> bool:
    """Whether the step's thing happened, as the outside world recorded it."""
    if kind == SIGN_IN_KIND:
        return SHOP_USERNAME in shop.state.signed_in.values()
    if kind == PAYMENT_KIND:
        return bool(shop.state.orders_of(SHOP_USERNAME))
    request = approvals.GetApprovalRequest(approval_id=step.approval_id)
    got = await _approvals(system, "GetApproval", request, metadata=run.person.meta)
    execution_id = got.approval.execution_id
    return bool(execution_id) and any(
        entry["idempotency_key"] == execution_id for entry in app.received
    )


async def outside(system: System, shop, app) -> dict[str, Any]:
    """Everything a look must leave as it was."""
    cursor = await system.db.execute("SELECT count(*) FROM claims.claims")
    (claims_made,) = await cursor.fetchone()
    return {
        **{f"shop {form}": n for form, n in shop.state.snapshot()["counts"].items()},
        "shop orders": len(shop.state.orders),
        "shop signed-in visitors": len(shop.state.signed_in),
        "shop awaiting code": len(shop.state.awaiting_code),
        "app received": len(app.received),
        "claims": claims_made,
    }


async def until_true(check: Callable[[], bool], timeout_s: float) -> None:
    deadline = asyncio.get_running_loop().time() + timeout_s
    while True:
        if check() or asyncio.get_running_loop().time() > deadline:
            return
        await asyncio.sleep(0.05)


@pytest.mark.parametrize(("round_", "cut"), CASES, ids=[f"{c.name}@{n}" for n, c in CASES])
async def test_look(round_, cut: Cut, system, shop_site, webhook_app, person, as_person):
    outcome = Outcome(cut)
    OUTCOMES.append(outcome)
    try:
        await one_case(outcome, cut, system, shop_site, webhook_app, person, as_person)
    except Exception as error:
        outcome.error = f"{type(error).__name__}: {error}"[:300]
        raise
    assert outcome.finding != "WRONG", outcome
    assert not outcome.sent_by_look, outcome


async def one_case(outcome: Outcome, cut: Cut, system, shop, app, person, as_person) -> None:
    owner = await system.arm(cut)
    armed = owner.process if owner else None
    if cut.where.startswith("shop."):
        form = cut.where.split(".")[1]
        shop.state.set_mode(form, "hold" if cut.action.startswith("hold") else cut.action)
    elif cut.where == "app":
        app.set_mode(cut.action, seconds=4.0 if cut.action == "slow" else None)
    stub = await system.fresh_tasks()
    claims_addr = system.services["claims"].peer.address
    payments_addr = system.services["payments"].peer.address
    seeded = await seed(claims_addr, payments_addr, person, as_person, shop.url)
    run = BenchRun(seeded, shop.url)
    if cut.kind == APP_KIND:
        run.account_id = await connect_app(system, as_person, app.url)
        system.model.script = _note(run)
    elif cut.kind == PAYMENT_KIND:
        system.model.script = PAY_SIGNED_IN.first(run)
    else:
        system.model.script = SIGN_IN.first(run)
    started = await stub.StartTask(pb.StartTaskRequest(text=cut.name), metadata=as_person)
    run.task_id = started.task.id

    async def start_again_once_killed() -> None:
        if owner is not None and cut.action == "kill":
            if owner.process is armed and not owner.alive():
                await system.restart(owner)

    await drive(system, stub, run, settled, start_again_once_killed)
    if owner is not None:
        assert armed is not None
        outcome.fired = fired(armed, cut.where)
        if cut.action == "kill" and outcome.fired:
            assert killed(armed)
        await start_again_once_killed()
    if cut.action == "hold-then-release":
        # The site answers late, after the browser gave up on it.
        form = cut.where.split(".")[1]
        shop.state.set_mode(form, "ok")
        before = len(shop.state.signed_in), len(shop.state.orders)
        shop.state.release(form)
        await until_true(lambda: (len(shop.state.signed_in), len(shop.state.orders)) != before, 5.0)
        await asyncio.sleep(0.5)  # the page takes the late answer
    try:
        await reconciled(system.db, run.task_id)
    except AssertionError as error:  # said in the case's line; the look goes on
        outcome.note = f"still running: {error}"[:300]
    steps = await uncertain_steps(stub, run)
    if not steps:
        states = await states_of(system.db, run.task_id)
        outcome.note = f"{outcome.note} no uncertain step: {states['steps']}".strip()
        if run.approval_id:
            request = approvals.GetApprovalRequest(approval_id=run.approval_id)
            got = await _approvals(system, "GetApproval", request, metadata=run.person.meta)
            execution = approvals.ExecutionState.Name(got.approval.execution_state)
            outcome.note += f" execution {execution.removeprefix('EXECUTION_STATE_')}"
        return
    step = steps[-1]
    outcome.looked_kind = kind_of(step)
    outcome.happened = await truth(system, outcome.looked_kind, step, run, shop, app)
    before = await outside(system, shop, app)
    reply = await stub.LookForMe(
        pb.LookForMeRequest(task_id=run.task_id, step=step.number),
        metadata=as_person,
        timeout=120,
    )
    await asyncio.sleep(0.5)  # anything a look set going would have arrived
    after = await outside(system, shop, app)
    outcome.sent_by_look = [
        f"{k}: {before[k]} -> {after[k]}" for k in before if before[k] != after[k]
    ]
    finding = pb.LookFinding.Name(reply.look.finding).removeprefix("LOOK_FINDING_")
    if finding == "FOUND" and not outcome.happened:
        finding = "WRONG"
    outcome.finding = finding
    outcome.sentence = reply.look.sentence


def table(outcomes: list[Outcome]) -> str:
    """Per kind of uncertain step looked at, the counts; then the cases."""
    head = (
        f"{'kind':<11}{'cases':>6}{'fired':>6}{'uncert':>7}{'readbl':>7}{'happnd':>7}"
        f"{'found✓':>7}{'wrong':>6}{'nosign':>7}{'(hap)':>6}{'n-t-r':>6}"
        f"{'res%rd':>7}{'res%hp':>7}{'sent':>5}{'error':>6}"
    )
    lines = ["Look bench: LookForMe after a cut-off (found = resolved; no sign = not)", head]
    totals = {"wrong": 0, "sent": 0}
    for kind in KINDS:
        of_kind = [o for o in outcomes if o.cut.kind == kind]
        looked = [o for o in outcomes if o.looked_kind == kind]
        readable = [o for o in looked if o.finding in ("FOUND", "WRONG", "NO_SIGN")]
        happened = [o for o in readable if o.happened]
        found = sum(o.finding == "FOUND" for o in looked)
        wrong = sum(o.finding == "WRONG" for o in looked)
        no_sign = [o for o in looked if o.finding == "NO_SIGN"]
        nothing = sum(o.finding == "NOTHING_TO_READ" for o in looked)
        sent = sum(bool(o.sent_by_look) for o in looked)
        totals["wrong"] += wrong
        totals["sent"] += sent

        def pct(n: int, d: int) -> str:
            return f"{100 * n / d:.0f}%" if d else "-"

        lines.append(
            f"{kind:<11}{len(of_kind):>6}{sum(o.fired for o in of_kind):>6}{len(looked):>7}"
            f"{len(readable):>7}{len(happened):>7}{found:>7}{wrong:>6}{len(no_sign):>7}"
            f"{sum(bool(o.happened) for o in no_sign):>6}{nothing:>6}"
            f"{pct(found, len(readable)):>7}{pct(found, len(happened)):>7}{sent:>5}"
            f"{sum(bool(o.error) for o in of_kind):>6}"
        )
    lines += [
        "cases: by the flow cut; fired: its fault point fired (modes always);",
        "uncert: an UNCERTAIN step was looked at (counted under its own kind);",
        "readbl: the look read the place (not NOTHING_TO_READ); happnd: of those, it happened;",
        "(hap): no-sign looks where it had happened; n-t-r: nothing to read;",
        "res%rd: found / readable; res%hp: found / readable-and-happened.",
        f"wrong findings: {totals['wrong']}; anything typed or sent by a look: {totals['sent']}",
        "",
        "case                                              look        happened  finding",
    ]
    for o in outcomes:
        happened = "-" if o.happened is None else ("yes" if o.happened else "no")
        note = " ".join(
            filter(None, [o.error, "" if o.fired else "(not fired)", o.note, *o.sent_by_look])
        )
        lines.append(
            f"{o.cut.name:<50}{o.looked_kind or '-':<12}{happened:<10}{o.finding or '-':<16}{note}"
        )
    return "\n".join(lines) + "\n"
