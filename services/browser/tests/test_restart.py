"""A runner killed mid-entry (G4, G12): after its restart, the claim it held
is UNCERTAIN (its boot released it) and the site saw at most one submission."""

import asyncio

import grpc
import pytest

from nod.browser.v1 import browser_pb2_grpc
from nod.claims.v1 import claims_pb2
from nodkit.client import open_channel
from nodtest.browser import browser_login, browser_open, claims_of_task, put_shop_login
from nodtest.claims import CANARY_CARD, CANARY_PASSWORD
from nodtest.demo import SHOP_USERNAME, shop_count, shop_wait_for_count
from nodtest.processes import ServiceProcess, free_port, wait_until_serving


@pytest.fixture
def browser_process(claims_server, service_env, tmp_path):
    address = f"127.0.0.1:{free_port()}"
    env = service_env | {
        "NOD_BROWSER_LISTEN": address,
        "NOD_CLAIMS_ADDR": claims_server,
        "NOD_INSTANCE_ID": "browser-killed-mid-entry",
        "NOD_BROWSER_ENTRY_TIMEOUT_S": "120",
        "NOD_BROWSER_REQUEST_TIMEOUT_S": "120",
    }
    process = ServiceProcess("nod_browser", env, tmp_path / "browser.log")
    process.address = address
    yield process
    process.stop()


async def test_a_runner_killed_mid_entry_ends_its_claim_uncertain_on_restart(
    browser_process, claims_stub, vault_stub, as_person, shop_site
):
    browser_process.start()
    await wait_until_serving(browser_process.address)
    channel = open_channel(browser_process.address)
    stub = browser_pb2_grpc.BrowserServiceStub(channel)
    item = await put_shop_login(vault_stub, as_person, shop_site, SHOP_USERNAME, CANARY_PASSWORD)
    session_id, page = await browser_open(stub, as_person, f"{shop_site.url}/login", "task-kill")
    shop_site.state.set_mode("login", "hold")
    entering = asyncio.ensure_future(browser_login(stub, as_person, session_id, page, item.id))
    await shop_wait_for_count(shop_site, "login", 1)
    [running] = await claims_of_task(claims_stub, as_person, "task-kill")
    assert running.state == claims_pb2.CLAIM_STATE_RUNNING

    browser_process.kill()
    with pytest.raises(grpc.aio.AioRpcError):
        await entering
    await channel.close()
    browser_process.start()
    await wait_until_serving(browser_process.address)

    [after] = await claims_of_task(claims_stub, as_person, "task-kill")
    assert after.id == running.id and after.state == claims_pb2.CLAIM_STATE_UNCERTAIN
    shop_site.state.release()
    assert shop_count(shop_site, "login") == 1
    log = browser_process.log_text()
    assert "holder.released" in log
    assert CANARY_PASSWORD not in log and CANARY_CARD not in log
