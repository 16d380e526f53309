"""The protobuf contracts' checks (`make lint`), and accepting a change
(`make accept-protos`); buf comes from npm, pinned in tools/.

    contracts.py check    buf lint (STANDARD, buf.yaml); buf breaking
                          (WIRE_JSON) against protos/accepted.binpb, the
                          contracts as last accepted; and that image is
                          what protos/ builds now, so no change lands
                          unaccepted (a field added and removed again
                          before anyone accepted it would slip past)
    contracts.py accept   the same breaking check, then the image rebuilt
                          from protos/: the change becomes the baseline

Why a committed image rather than `--against .git#branch=main`: a clean
clone or CI's detached checkout has no dependable `main` to read; the image
travels with the protos it describes, and a breaking change can land only
by rewriting it by hand, which a reviewer sees. `--root` points the checks
at another copy of the tree (the tests' scratch copies).
"""

import argparse
import pathlib
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
BUF = ROOT / "tools" / "node_modules" / ".bin" / "buf"
ACCEPTED = pathlib.Path("protos") / "accepted.binpb"


def buf(root: pathlib.Path, *args: str) -> bool:
    if not BUF.exists():
        sys.exit(f"{BUF} is missing: `make lint` installs it (npm ci in tools/)")
    return subprocess.run([str(BUF), *args], cwd=root).returncode == 0


def build(root: pathlib.Path, out: pathlib.Path) -> None:
    # Without source info the image changes only when a contract does, not
    # when a comment does.
    if not buf(root, "build", "--exclude-source-info", "-o", str(out)):
        sys.exit("buf build failed")


def not_breaking(root: pathlib.Path) -> bool:
    if not (root / ACCEPTED).exists():
        sys.exit(f"{ACCEPTED} is missing: `make accept-protos` writes it")
    if buf(root, "breaking", "--against", str(ACCEPTED)):
        return True
    print(
        "contracts: the change above would break a deployed client. Keep the old"
        " field or method (reserve a removed field's number AND name), or add a new"
        " package version (nod.<service>.v2) beside the old one.",
        file=sys.stderr,
    )
    return False


def accepted(root: pathlib.Path) -> bool:
    with tempfile.TemporaryDirectory() as scratch:
        now = pathlib.Path(scratch) / "now.binpb"
        build(root, now)
        if now.read_bytes() == (root / ACCEPTED).read_bytes():
            return True
    print(
        "contracts: protos/ changed since it was last accepted; if the change is"
        " meant, run `make accept-protos` and commit protos/accepted.binpb with it.",
        file=sys.stderr,
    )
    return False


def check(root: pathlib.Path) -> bool:
    linted = buf(root, "lint")
    compatible = not_breaking(root)
    if linted and compatible and accepted(root):
        print(f"contracts: buf lint clean; protos/ is {ACCEPTED}, nothing in it breaks")
        return True
    return False


def accept(root: pathlib.Path) -> bool:
    if (root / ACCEPTED).exists() and not not_breaking(root):
        return False
    build(root, root / ACCEPTED)
    print(f"contracts: {ACCEPTED} now holds the contracts in protos/")
    return True


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("command", choices=["check", "accept"])
    parser.add_argument("--root", type=pathlib.Path, default=ROOT)
    args = parser.parse_args()
    ok = check(args.root) if args.command == "check" else accept(args.root)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
