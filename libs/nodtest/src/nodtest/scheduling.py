"""How make test spreads modules over its processes (pytest-xdist's
`--dist loadscope`, with groups).

loadscope keeps a module whole on one worker. Some fixtures start a whole
make-run system (eight processes, some forty database connections) and
are shared by many modules; left to loadscope, every worker that meets one
of those modules starts a system of its own and keeps it to the end of the
run: six systems were seen alive at once, with PostgreSQL at 268 of its
300 connections and later tests failing for it. Here the modules sharing a
system form one work unit, so one worker starts it once; the fixture is
package-scoped, so it stops when that worker leaves the package."""

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
