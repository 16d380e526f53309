"""make test keeps the modules that share one make-run system on one
worker (nodtest.scheduling): a module that uses such a fixture but is left
out of its group would start a second system beside the first."""

import ast
import pathlib

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
