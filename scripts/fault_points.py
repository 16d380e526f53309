"""`make lint`'s check of the fault points: every `faults.point("name")` in
the code names a point listed in nodkit.fault_points.POINTS, with a literal
name, and every listed point is passed somewhere. A point nobody listed
would never be armed by a test; a listed point the code dropped would leave
a test arming nothing."""

import ast
import pathlib
import sys

from nodkit.fault_points import POINTS

ROOT = pathlib.Path(__file__).resolve().parent.parent
SOURCES = [*ROOT.glob("services/*/src"), ROOT / "gateway" / "src", ROOT / "libs" / "nodkit" / "src"]


def _is_point_call(node: ast.Call) -> bool:
    function = node.func
    if isinstance(function, ast.Attribute):
        return function.attr == "point" and getattr(function.value, "id", None) == "faults"
    return False


def points_in_code() -> tuple[dict[str, list[str]], list[str]]:
    """Point names by where they are passed, and the calls whose name isn't a literal."""
    found: dict[str, list[str]] = {}
    problems: list[str] = []
    for source in SOURCES:
        for path in sorted(source.rglob("*.py")):
            tree = ast.parse(path.read_text(), str(path))
            for node in ast.walk(tree):
                if not (isinstance(node, ast.Call) and _is_point_call(node)):
                    continue
                where = f"{path.relative_to(ROOT)}:{node.lineno}"
                name = node.args[0] if node.args else None
                if not (isinstance(name, ast.Constant) and isinstance(name.value, str)):
                    problems.append(f"{where}: faults.point takes a literal name")
                    continue
                found.setdefault(name.value, []).append(where)
    return found, problems


def main() -> int:
    found, problems = points_in_code()
    for name, places in sorted(found.items()):
        if name not in POINTS:
            problems.append(f"{places[0]}: {name!r} is not in nodkit.fault_points.POINTS")
    for name in sorted(set(POINTS) - set(found)):
        problems.append(f"nodkit.fault_points.POINTS lists {name!r}, which no code passes")
    for problem in problems:
        print(f"fault points: {problem}", file=sys.stderr)
    if not problems:
        print(f"fault points: {len(found)} in the code, each listed once")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
