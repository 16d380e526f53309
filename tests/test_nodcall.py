"""scripts/nodcall.py, the reflection client the README shows: replies as
JSON, refusals with their reason and field, mistakes in one line."""

import asyncio
import sys
from dataclasses import dataclass

from tests.test_make_run import ROOT


@dataclass
class Done:
    returncode: int
    stdout: str
    stderr: str


async def nodcall(system, service_token, *args: str) -> Done:
    """Runs beside this test's event loop, which serves the services it calls."""
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        str(ROOT / "scripts/nodcall.py"),
        system["claims"],
        *args,
        env={"NOD_SERVICE_TOKEN": service_token.get_secret_value(), "PATH": "/usr/bin:/bin"},
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(process.communicate(), 60)
    return Done(process.returncode or 0, out.decode(), err.decode())


async def test_a_reply_a_refusal_and_mistakes(system, service_token):
    listed = await nodcall(
        system, service_token, "nod.claims.v1.VaultService/ListItems", "{}", "--user", "p"
    )
    assert listed.returncode == 0 and listed.stdout.strip() == "{}"

    refused = await nodcall(
        system,
        service_token,
        "nod.claims.v1.ClaimsService/GetClaim",
        '{"claimId": "not-an-id"}',
        "--user",
        "p",
    )
    assert refused.returncode == 1
    assert "INVALID_ARGUMENT" in refused.stderr and "[field claim_id]" in refused.stderr
    assert "[reason INVALID_ARGUMENT]" in refused.stderr

    for args, said in [
        (["nod.claims.v1.VaultService/ListItems", "{not json"], "is not a ListItemsRequest"),
        (["nod.claims.v1.VaultService/Nope", "{}"], "has no method 'Nope'"),
        (["nod.nothing.v1.X/Y", "{}"], "no service"),
    ]:
        mistake = await nodcall(system, service_token, *args)
        assert mistake.returncode == 2
        assert said in mistake.stderr and len(mistake.stderr.strip().splitlines()) == 1
