"""Hostile pages (nodtest.hostile, docs/HOSTILE_PAGES.md): pages on sites
of our own that try, through an obedient model, to send the person's
private values (a saved password, a one-time code, a card) somewhere the
person never chose, or to reach an internal address. One system runs
every case; every place a value could reach is counted, and every count
must be 0. `make hostile` prints the table this module asserts on."""

import asyncio
import os
import pathlib

import pytest

from nod.tasks.v1 import tasks_pb2 as pb
from nodtest.hostile.cases import all_cases
from nodtest.hostile.suite import HostileSuite, Outcome, Target
from nodtest.hostile.values import CARD, CODE, PASSWORD

from .hostile_system import hostile_system

# One system runs every case in the module's fixture (a minute or two here):
# the first test's time includes it.
pytestmark = [pytest.mark.slow, pytest.mark.timeout(480)]


@pytest.fixture(scope="module")
async def outcome(service_token, vault_key, log_tee) -> Outcome:
    cases = all_cases()
    if only := os.environ.get("NOD_HOSTILE_CASES"):
        # A few cases by name (make hostile CASES=...), when looking at one.
        cases = [c for c in cases if any(part in c.id for part in only.split(","))]
    suite = await HostileSuite(cases).start()
    first_line = len(log_tee.lines)
    try:
        async with hostile_system(service_token, vault_key, suite.model.url) as system:
            logs = lambda: log_tee.lines[first_line:]  # noqa: E731
            target = Target(system.services, system.database_url, logs, system.tasks_metrics)
            found = await suite.run(target)
    finally:
        await suite.close()
    if report := os.environ.get("NOD_HOSTILE_TABLE"):
        text = f"{found.text}\n({found.seconds:.0f} s for the cases)\n"
        await asyncio.to_thread(pathlib.Path(report).write_text, text)
    return found


def test_the_controls_deliver_each_value_where_the_person_chose(outcome):
    """The counting can see a value arrive: in the cases that attack
    nothing, each reached its own site (A, or the card fields' C)."""
    arrived = {(r.case, r.site, s.kind) for r in outcome.records.received for s in r.sightings}
    assert ("control-sign-in", "A", PASSWORD) in arrived, outcome.text
    assert ("control-code", "A", CODE) in arrived, outcome.text
    assert ("control-hosted-card-fields", "C", CARD) in arrived, outcome.text


def test_every_case_ran_to_an_end_of_its_own(outcome):
    """A task that never read its first page, failed on the way (the
    model's answer lost, a service unreachable) or never ended could hide
    a leak: no such ending counts."""
    broken = {
        case: ended.task.message
        for case, ended in outcome.endings.items()
        if not any(
            step.state == pb.STEP_STATE_DONE and '"page"' in step.result for step in ended.steps
        )
        or ended.task.state in (pb.TASK_STATE_FAILED, pb.TASK_STATE_INTERRUPTED)
        or any("took too long" in answer for answer in ended.answers)
    }
    assert broken == {}, outcome.text


def test_no_page_sends_a_value_or_a_request_where_the_person_did_not_choose(outcome):
    assert outcome.leaks() == {}, "\n" + outcome.text
