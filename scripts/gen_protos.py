"""Generate Python code from protos/: messages, gRPC stubs, and typed stubs
for both (mypy-protobuf's .pyi files).

Usage: gen_protos.py [OUT_DIR]   (default: gen/python)
       gen_protos.py --check     (regenerates into a temporary folder and
                                  fails if the committed code differs)

The output is committed; tests/test_generated_code.py runs the check too.
"""

import filecmp
import pathlib
import sys
import tempfile

import grpc_tools
from grpc_tools import protoc

ROOT = pathlib.Path(__file__).resolve().parent.parent
PROTOS = ROOT / "protos"
COMMITTED = ROOT / "gen" / "python"
WELL_KNOWN = pathlib.Path(grpc_tools.__file__).parent / "_proto"
# mypy-protobuf's plugins sit beside the interpreter running this script.
BIN = pathlib.Path(sys.executable).parent


def generate(out_dir: pathlib.Path) -> None:
    out_dir.mkdir(parents=True, exist_ok=True)
    sources = sorted(str(p.relative_to(PROTOS)) for p in PROTOS.rglob("*.proto"))
    args = [
        "protoc",
        f"-I{PROTOS}",
        f"-I{WELL_KNOWN}",
        f"--plugin=protoc-gen-mypy={BIN / 'protoc-gen-mypy'}",
        f"--plugin=protoc-gen-mypy_grpc={BIN / 'protoc-gen-mypy_grpc'}",
        f"--python_out={out_dir}",
        f"--grpc_python_out={out_dir}",
        f"--mypy_out={out_dir}",
        f"--mypy_grpc_out={out_dir}",
        *sources,
    ]
    if protoc.main(args) != 0:
        raise SystemExit("protoc failed")
    # The stubs above are the package's types: say so to type checkers.
    (out_dir / "nod" / "py.typed").touch()


def differences(left: pathlib.Path, right: pathlib.Path) -> list[str]:
    comparison = filecmp.dircmp(left, right, ignore=["__pycache__"])
    found = [f"only in committed: {n}" for n in comparison.left_only]
    found += [f"missing from committed: {n}" for n in comparison.right_only]
    found += [f"differs: {n}" for n in comparison.diff_files]
    for name in comparison.subdirs:
        found += [f"{name}/{d}" for d in differences(left / name, right / name)]
    return found


def check() -> list[str]:
    with tempfile.TemporaryDirectory() as fresh:
        generate(pathlib.Path(fresh))
        return differences(COMMITTED / "nod", pathlib.Path(fresh) / "nod")


if __name__ == "__main__":
    if sys.argv[1:] == ["--check"]:
        found = check()
        if found:
            raise SystemExit("gen/python is not what protos/ generate:\n  " + "\n  ".join(found))
    else:
        generate(pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else COMMITTED)
