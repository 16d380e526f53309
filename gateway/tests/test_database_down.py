"""The gateway while its own database (people and sessions) is stopped or
frozen in the middle of a sign-in: no request outlives the gateway's limit,
/healthz says 503 during the outage and 200 again by itself afterwards, the
page shows no internals, and no session exists without a committed record:
a sign-in cut off by the outage opens none, and works once it is over."""

import asyncio
import re
import time
import uuid

import httpx
import pytest

from nod_gateway import MIGRATIONS
from nod_gateway.__main__ import add_person
from nod_gateway.settings import GatewaySettings
from nodkit.client import wait_until_answering
from nodtest.browser import poll
from nodtest.fault_proxy import PostgresFaultProxy
from nodtest.processes import ServiceProcess, free_port

CALL_LIMIT_S = 2.0
PASSWORD = "canary-gateway-pw-5Tq8"
SESSION_COOKIE = "nod_session"
LEAKS = re.compile(r"Traceback|File \"|Exception|psycopg|sqlalchemy|127\.0\.0\.1:\d+")


@pytest.fixture(scope="module")
def gateway_migrated(database_url) -> str:
    MIGRATIONS.upgrade(database_url)
    return database_url


async def binding_of(client: httpx.AsyncClient) -> str:
    page = await client.get("/signin")
    found = re.search(r'name="binding" value="([^"]+)"', page.text)
    assert found, page.text
    return found.group(1)


async def sign_in(client: httpx.AsyncClient, name: str, binding: str) -> httpx.Response:
    form = {"binding": binding, "name": name, "password": PASSWORD, "next": "/tasks"}
    return await client.post("/signin", data=form, headers={"origin": str(client.base_url)})


async def healthz(url: str) -> int:
    async with httpx.AsyncClient(base_url=url, timeout=CALL_LIMIT_S + 15) as client:
        return (await client.get("/healthz")).status_code


async def a_sign_in_through_an_outage(gateway_migrated, service_token, tmp_path, outage):
    proxy = await PostgresFaultProxy.for_url(gateway_migrated)
    name = f"gw-{uuid.uuid4().hex[:8]}"
    settings = GatewaySettings(database_url=gateway_migrated, service_token=service_token)
    await add_person(settings, name, PASSWORD)
    address = f"127.0.0.1:{free_port()}"
    env = {
        "NOD_DATABASE_URL": proxy.url_for(gateway_migrated),
        "NOD_SERVICE_TOKEN": service_token.get_secret_value(),
        "NOD_GATEWAY_LISTEN": address,
        "NOD_INSTANCE_ID": f"gateway-{name}",
        "NOD_DB_CALL_TIMEOUT_S": str(CALL_LIMIT_S),
    }
    process = ServiceProcess("nod_gateway", env, tmp_path / "gateway.log")
    process.start()
    url = f"http://{address}"
    start, end = outage(proxy)
    try:
        await asyncio.to_thread(wait_until_answering, f"{url}/healthz", 60)
        assert await healthz(url) == 200
        async with httpx.AsyncClient(base_url=url, timeout=60) as client:
            binding = await binding_of(client)

            start()
            started = time.monotonic()
            cut_off = await sign_in(client, name, binding)
            took = time.monotonic() - started
            # The limit per statement, plus the driver's bounded clean-up.
            assert took < CALL_LIMIT_S + 15, f"the sign-in took {took:.1f} s"
            assert cut_off.status_code >= 500, cut_off.status_code
            assert SESSION_COOKIE not in client.cookies
            assert LEAKS.search(cut_off.text) is None, cut_off.text
            assert PASSWORD not in cut_off.text
            assert await healthz(url) == 503

            end()

            async def healthy() -> bool:
                return await healthz(url) == 200

            await poll(healthy, timeout_s=30, what="/healthz to say 200 again")
            signed_in = await sign_in(client, name, await binding_of(client))
            assert signed_in.status_code == 303, signed_in.text
            assert SESSION_COOKIE in client.cookies
    finally:
        end()
        process.stop()
        await proxy.close()
    log = (tmp_path / "gateway.log").read_text()
    assert PASSWORD not in log


async def test_a_frozen_database_hangs_no_request_and_opens_no_session(
    gateway_migrated, service_token, tmp_path
):
    await a_sign_in_through_an_outage(
        gateway_migrated, service_token, tmp_path, lambda proxy: (proxy.freeze, proxy.thaw)
    )


async def test_a_stopped_database_fails_requests_fast_and_opens_no_session(
    gateway_migrated, service_token, tmp_path
):
    await a_sign_in_through_an_outage(
        gateway_migrated, service_token, tmp_path, lambda proxy: (proxy.stop, proxy.resume)
    )
