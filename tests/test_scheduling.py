"""make test keeps the modules that share one make-run system on one
worker (nodtest.scheduling): a module that uses such a fixture but is left
out of its group would start a second system beside the first."""

import ast
import pathlib
import subprocess
import sys

from nodtest.scheduling import group_of

ROOT = pathlib.Path(__file__).resolve().parent.parent
# The package-scoped fixtures in tests/conftest.py that start services, and
# the group their users must be in.
SHARED = {"made_run": "made_run", "system": "flow services", "channels": "flow services"}


def fixtures_asked_for(path: pathlib.Path) -> set[str]:
    """The argument names of the module's test functions and fixtures."""
    tree = ast.parse(path.read_text())
    return {
        arg.arg
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        for arg in node.args.args
    }


def test_every_module_using_a_shared_system_is_in_its_group():
    for path in sorted((ROOT / "tests").glob("test_*.py")):
        nodeid = f"{path.relative_to(ROOT)}::test"
        for fixture in fixtures_asked_for(path) & SHARED.keys():
            assert group_of(nodeid) == SHARED[fixture], f"{nodeid}: uses {fixture}"


def test_the_gateway_and_nodctl_tests_are_one_unit_each():
    assert group_of("gateway/tests/test_vault.py::test_x") == "gateway system"
    assert group_of("gateway/tests/sub/test_y.py::test_x[a]") == "gateway system"
    assert group_of("libs/nodctl/tests/test_nodctl.py::test_x") == "nodctl system"
    assert group_of("services/claims/tests/test_vault.py::test_x") is None


CRASHING = {
    "test_a.py": "def test_a1(): pass\ndef test_a2(): pass\n",
    "test_b.py": (
        "import os\ndef test_b1(): pass\ndef test_crash(): os._exit(1)\ndef test_after(): pass\n"
    ),
    "test_c.py": "import os, time\ndef test_c1(): time.sleep(1); os._exit(1)\n",
    "test_d.py": "def test_d1(): pass\n",
}


def test_a_worker_that_dies_fails_its_test_and_the_run_ends(tmp_path):
    """A test that takes its worker down is reported failed, is not run
    again, and the rest of its module and of the run still run; the run
    ends (pytest-xdist's own loadscope deadlocks or reruns it)."""
    for name, text in CRASHING.items():
        (tmp_path / name).write_text(text)
    (tmp_path / "conftest.py").write_text(
        "def pytest_xdist_make_scheduler(config, log):\n"
        "    from nodtest.scheduling import GroupedScheduling\n"
        "    return GroupedScheduling(config, log)\n"
    )
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-n", "2", "--dist", "loadscope",
         "-p", "no:cacheprovider", "-o", "addopts=", str(tmp_path)],
        cwd=tmp_path, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    summary = run.stdout.strip().splitlines()[-1]
    assert "2 failed, 5 passed" in summary, run.stdout[-2000:]
    assert "crashed while running 'test_b.py::test_crash'" in run.stdout
