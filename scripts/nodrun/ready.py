"""Run by `make run` beside the supervisor: waits for every service and the
gateway, seeds the demo person, then prints where everything is (or that
the set-up did not finish; the services keep running either way).

python scripts/nodrun/ready.py SHOP_URL APP_URL VAR"""

import asyncio
import os
import pathlib
import sys

from pydantic import SecretStr

# scripts/, in place of this file's own folder (sys.path[0] for a script):
# nodrun/secrets.py there would stand in for the standard library's
# `secrets`. The imports below come after it (ruff's E402 is off here).
sys.path[0] = str(pathlib.Path(__file__).resolve().parents[1])

from nod_gateway import SCHEMA
from nod_gateway.people import store
from nod_gateway.settings import GatewaySettings
from nodkit.client import wait_until_answering, wait_until_serving
from nodkit.db import create_engine
from nodkit.tls import Tls
from nodrun import demo, summary
from nodrun.services import BY_NAME, GATEWAY, SERVICES

TIMEOUT_S = 90


def own_tls() -> Tls | None:
    """The certificate make run gave this script (the gateway's), if any."""
    if not os.environ.get("NOD_TLS_CERT_FILE"):
        return None
    files = (os.environ[f"NOD_TLS_{name}_FILE"] for name in ("CERT", "KEY", "CA"))
    return Tls.from_files(*files)


async def set_up(shop_url: str, app_url: str) -> str:
    """The demo person seeded, once everything answers: their id."""
    tls = own_tls()
    for service in SERVICES:
        await wait_until_serving(service.address, timeout_s=TIMEOUT_S, tls=tls, peer=service.name)
    await asyncio.to_thread(wait_until_answering, f"http://{GATEWAY.address}/healthz", TIMEOUT_S)
    person_id = await demo_person_id()
    await demo.seed(
        BY_NAME["claims"].address,
        BY_NAME["approvals"].address,
        SecretStr(os.environ["NOD_SERVICE_TOKEN"]),
        person_id,
        shop_url,
        app_url,
        tls=tls,
    )
    return person_id


async def demo_person_id() -> str:
    """The id the services know the demo person by (the gateway's, given
    when make run added them), from the gateway's own settings."""
    engine = create_engine(GatewaySettings(), SCHEMA)
    try:
        person_id = await store.person_id_of(engine, demo.PERSON)
    finally:
        await engine.dispose()
    if person_id is None:
        raise RuntimeError(f"the gateway has no person named {demo.PERSON}")
    return person_id


def main() -> int:
    shop_url, app_url, var = sys.argv[1], sys.argv[2], pathlib.Path(sys.argv[3])
    try:
        person_id = asyncio.run(set_up(shop_url, app_url))
    except Exception as error:  # noqa: BLE001 - reported; the services keep running
        print(f"\nnod: the demo set-up did not finish: {error!r}\n", flush=True)
        return 1
    print(summary.text(shop_url, app_url, var, person_id, tls=own_tls() is not None), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
