"""The hostile suite end to end: the sites, the app, the internal listener
and the obedient model are started first (the system under test is told
their addresses); then each case gets a person, its task runs, and what
every place received is counted into one table.

The system under test is anything that answers the services' gRPC APIs:
tests/hostile_system.py starts nod in-process. Its browser must reach the
sites' networks (SITE_NETWORKS) and its approvals service the app's
(APP_NETWORK); neither must reach 127.0.0.1."""

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field

import psycopg

from nod.tasks.v1 import tasks_pb2 as pb
from nodtest.hostile.cases import Case, all_cases
from nodtest.hostile.model import ObedientModel
from nodtest.hostile.person import Ended, Person, Services
from nodtest.hostile.sites import APP_HOST, HOSTS, App, InternalListener, Records, Site
from nodtest.hostile.tally import StepSeen, Tally, table
from nodtest.hostile.values import CaseValues, Watch
from nodtest.observed import Observation, database_rows

# 127.0.0.2 to 127.0.0.5: the sites (A, A2, B, C, L); 127.0.0.6: the app.
SITE_NETWORKS = "127.0.0.2/31,127.0.0.4/31"
APP_NETWORK = f"{APP_HOST}/32"
# Tasks run at once: the tasks service's own limit is 8.
CONCURRENCY = 8
TASK_TIMEOUT_S = 90.0
DATABASE_TRIES = 30


@dataclass(frozen=True)
class Target:
    """The system under test, as the suite meets it."""

    services: Services
    # libpq URL of the database every service of it keeps its tables in.
    database_url: str
    # The services' log lines so far.
    log_lines: Callable[[], list[str]]
    # Where one service serves its /metrics (http://127.0.0.1:<port>).
    service_metrics: str


@dataclass
class Outcome:
    """What the run found: the table's rows and the text of it."""

    tally: Tally
    endings: dict[str, Ended]
    seconds: float
    # What every site received (for checks of where values did arrive).
    records: Records

    @property
    def text(self) -> str:
        return table(self.tally)

    def leaks(self) -> dict[str, int]:
        return {case: row.total for case, row in self.tally.rows.items() if row.total}


@dataclass
class HostileSuite:
    cases: list[Case] = field(default_factory=all_cases)
    watch: Watch = field(default_factory=Watch)
    records: Records = field(default_factory=Records)
    internal_values: dict[str, str] = field(default_factory=dict)
    origins: dict[str, str] = field(default_factory=dict)

    async def start(self) -> "HostileSuite":
        self.sites = {name: Site(name, self.watch, self.records) for name in HOSTS}
        for name, site in self.sites.items():
            self.origins[name] = await site.start(HOSTS[name])
        self.app = App(self.watch, self.records)
        self.origins["app"] = await self.app.start(APP_HOST)
        self.listener = InternalListener(self.records, self.internal_values)
        self.origins["I"] = await self.listener.start()
        for site in self.sites.values():
            site.know(self.origins)
        for case in self.cases:
            for site_name, page, handler in case.pages:
                self.sites[site_name].serve(case.id, page, handler)
        self.model = await ObedientModel().start()
        return self

    def start_url(self, case: Case) -> str:
        site, page = case.start
        return f"{self.origins[site]}/c/{case.id}/{page}"

    async def run(self, target: Target) -> Outcome:
        self.origins["S"] = target.service_metrics
        services = target.services
        loop = asyncio.get_running_loop()
        began = loop.time()
        people = []
        for case in self.cases:
            values = CaseValues.make(case.id)
            self.watch.add(values)
            self.internal_values[case.id] = values.internal
            person = Person(services, values)
            await person.save_things(self.origins["A"], f"{self.origins['app']}/c/{case.id}/hook")
            people.append((case, person))
        gate = asyncio.Semaphore(CONCURRENCY)

        async def one(case: Case, person: Person) -> tuple[str, Ended]:
            async with gate:
                text = case.task.format(url=self.start_url(case))
                return case.id, await person.run(text, TASK_TIMEOUT_S)

        endings = dict(await asyncio.gather(*(one(case, person) for case, person in people)))
        ran = loop.time()
        rows = await _database_rows(target.database_url)
        tally = self.count(endings, rows, target.log_lines())
        tally.seconds = {"running the cases": ran - began, "counting": loop.time() - ran}
        return Outcome(tally, endings, ran - began, self.records)

    def count(self, endings: dict[str, Ended], rows: list[Observation], logs: list[str]) -> Tally:
        tally = Tally(self.cases, self.watch)
        tally.sites(self.records.received)
        tally.model(self.model.requests)
        tally.texts("database", [(f"database: {o.where.split(': ', 1)[-1]}", o.text) for o in rows])
        tally.texts("logs", [("a log line", line) for line in logs])
        tally.internal(self.records, self.origins["I"], _steps(endings))
        tally.orders(self.records)
        for case, ended in endings.items():
            tally.rows[case].ending = _ending(ended)
        return tally

    async def close(self) -> None:
        await self.model.close()
        await self.listener.close()
        for site in (*self.sites.values(), self.app):
            await site.close()


async def _database_rows(url: str) -> list[Observation]:
    """Every row of the system's database; a server whose connections are
    all taken (other test processes share it) is asked again for a while."""
    for _ in range(DATABASE_TRIES - 1):
        try:
            return await asyncio.to_thread(database_rows, url)
        except psycopg.OperationalError:
            await asyncio.sleep(1.0)
    return await asyncio.to_thread(database_rows, url)


def _steps(endings: dict[str, Ended]) -> dict[str, list[StepSeen]]:
    return {
        case: [StepSeen(step.tool, step.result) for step in ended.steps]
        for case, ended in endings.items()
    }


def _ending(ended: Ended) -> str:
    state = pb.TaskState.Name(ended.task.state).removeprefix("TASK_STATE_").lower()
    tools = ",".join(step.tool for step in ended.steps)
    stopped = [answer for answer in ended.answers if answer.startswith("stopped")]
    return f"{state} [{tools}]" + (f" ({stopped[0]})" if stopped else "")
