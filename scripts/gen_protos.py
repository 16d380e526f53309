"""Generate Python code (messages, .pyi stubs, gRPC stubs) from protos/.

Usage: gen_protos.py [OUT_DIR]   (default: gen/python)

The output is committed; tests/test_generated_code.py regenerates into a
temporary folder and fails if anything differs.
"""

import pathlib
import sys

import grpc_tools
from grpc_tools import protoc

ROOT = pathlib.Path(__file__).resolve().parent.parent
PROTOS = ROOT / "protos"
WELL_KNOWN = pathlib.Path(grpc_tools.__file__).parent / "_proto"


def generate(out_dir: pathlib.Path) -> None:
    out_dir.mkdir(parents=True, exist_ok=True)
    sources = sorted(str(p.relative_to(PROTOS)) for p in PROTOS.rglob("*.proto"))
    args = [
        "protoc",
        f"-I{PROTOS}",
        f"-I{WELL_KNOWN}",
        f"--python_out={out_dir}",
        f"--pyi_out={out_dir}",
        f"--grpc_python_out={out_dir}",
        *sources,
    ]
    if protoc.main(args) != 0:
        raise SystemExit("protoc failed")


if __name__ == "__main__":
    generate(pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "gen" / "python")
