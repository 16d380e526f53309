"""How make test spreads modules over its processes (pytest-xdist's
`--dist loadscope`, with groups).

loadscope keeps a module whole on one worker. Some fixtures start a whole
make-run system (eight processes, some forty database connections) and
are shared by many modules; left to loadscope, every worker that meets one
of those modules starts a system of its own and keeps it to the end of the
run: six systems were seen alive at once, with PostgreSQL at 268 of its
300 connections and later tests failing for it. Here the modules sharing a
system form one work unit, so one worker starts it once; the fixture is
package-scoped, so it stops when that worker leaves the package.

And a worker that dies mid-run (a test that takes its process down, or the
timeout's thread method ending it) must fail that test, not hang the run:
pytest-xdist 3.8's loadscope puts a dead worker's whole workload back on
the queue, its finished modules too, and a finished module sent again is an
empty run that never completes; at the end of the run every worker waits
for work that never comes, until CI's time limit (pytest-xdist issues 1323,
1327, 1378). Here only what is left of the dead worker's modules goes back,
the test it died on is not run again (it was reported failed, and would
take the next worker down too), and a replacement worker gets two units at
once, as the first workers do, since a worker holding one test waits for a
second before it runs the first. Work given to a worker that has died
but whose death is not yet reported (two dying at once) can't be sent; it
stays that worker's, and goes back on the queue when its death is."""

from xdist.scheduler import LoadScopeScheduling  # type: ignore[import-untyped]

# Each group: the folders or modules whose tests share one system.
GROUPS: dict[str, tuple[str, ...]] = {
    # The gateway's `nod` (gateway/tests/conftest.py).
    "gateway system": ("gateway/tests/",),
    # nodctl's `system` (libs/nodctl/tests/conftest.py).
    "nodctl system": ("libs/nodctl/tests/",),
    # `made_run` (tests/conftest.py).
    "made_run": (
        "tests/test_authorization.py",
        "tests/test_fuzz_rpc.py",
        "tests/test_card_numbers_anywhere.py",
    ),
    # `system`, the services the flows need (tests/conftest.py).
    "flow services": (
        "tests/test_payment_flow.py",
        "tests/test_nodcall.py",
    ),
}


def group_of(nodeid: str) -> str | None:
    for group, paths in GROUPS.items():
        if nodeid.startswith(paths):
            return group
    return None


class GroupedScheduling(LoadScopeScheduling):
    def _split_scope(self, nodeid: str) -> str:
        return group_of(nodeid) or super()._split_scope(nodeid)

    def remove_node(self, node) -> str | None:
        workload = self.assigned_work.pop(node)
        if not self._pending_of(workload):
            return None
        crashitem = next(
            nodeid for unit in workload.values() for nodeid, done in unit.items() if not done
        )
        for unit in workload.values():
            if crashitem in unit:
                unit[crashitem] = True
        left = {scope: unit for scope, unit in workload.items() if not all(unit.values())}
        self.workqueue.update(left)
        for other in self.assigned_work:
            self._reschedule(other)
        return crashitem

    def _reschedule(self, node) -> None:
        try:
            super()._reschedule(node)
        except OSError:  # execnet: "cannot send (already closed?)"
            pass  # its worker_errordown comes next, and remove_node requeues

    def schedule(self) -> None:
        if self.collection is None:
            super().schedule()
            return
        for node in self.nodes:  # a replacement for a dead worker among them
            self._reschedule(node)
            self._reschedule(node)
