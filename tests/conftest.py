"""The end-to-end tests' system: claims, payments and the browser runner,
each built by its own wiring and started the way `serve` starts it, in this
process (their log lines reach log_tee), sharing one Chromium."""

import pathlib
import uuid

import pytest

from nod.browser.v1 import browser_pb2_grpc
from nod.claims.v1 import claims_pb2_grpc
from nod.payments.v1 import payments_pb2_grpc
from nod_browser import wiring as browser_wiring
from nod_browser.adapters.chromium import Chromium
from nod_browser.settings import BrowserSettings
from nod_claims import MIGRATIONS as CLAIMS_MIGRATIONS
from nod_claims import wiring as claims_wiring
from nod_claims.settings import ClaimsSettings
from nod_payments import MIGRATIONS as PAYMENTS_MIGRATIONS
from nod_payments import wiring as payments_wiring
from nod_payments.settings import PaymentsSettings
from nodkit import service
from nodkit.client import open_channel
from nodtest.addresses import BROWSER_ALLOWED_NETWORKS
from nodtest.make_run import MakeRun

from .wheelhouse import WheelHouse

ROOT = pathlib.Path(__file__).resolve().parent.parent


@pytest.fixture(scope="package")
async def system(database_url, service_token, vault_key, log_tee):
    """Every service the flows need, SERVING; their addresses by name."""
    CLAIMS_MIGRATIONS.upgrade(database_url)
    PAYMENTS_MIGRATIONS.upgrade(database_url)
    shared = {"database_url": database_url, "service_token": service_token}
    claims_settings = ClaimsSettings(**shared, vault_key=vault_key, instance_id="e2e-claims")
    claims = await service.start(
        await claims_wiring.build(claims_settings), claims_settings, listen="127.0.0.1:0"
    )
    payments_settings = PaymentsSettings(
        **shared, instance_id="e2e-payments", claims_addr=claims.address
    )
    payments = await service.start(
        await payments_wiring.build(payments_settings), payments_settings, listen="127.0.0.1:0"
    )
    chromium = await Chromium.launch()
    browser_settings = BrowserSettings(
        service_token=service_token,
        claims_addr=claims.address,
        instance_id=f"e2e-browser-{uuid.uuid4().hex[:8]}",
        action_timeout_s=5.0,
        entry_timeout_s=10.0,
        # The test sites' addresses (127.0.0.2 and up), never the services' 127.0.0.1.
        allowed_networks=BROWSER_ALLOWED_NETWORKS,
    )
    browser = await service.start(
        await browser_wiring.build(browser_settings, chromium=chromium),
        browser_settings,
        listen="127.0.0.1:0",
    )
    yield {"claims": claims.address, "payments": payments.address, "browser": browser.address}
    for running in (browser, payments, claims):
        await running.stop()
    await chromium.close()


@pytest.fixture(scope="package")
async def channels(system):
    opened = {name: open_channel(address) for name, address in system.items()}
    yield opened
    for channel in opened.values():
        await channel.close()


@pytest.fixture(scope="package")
def claims_stub(channels):
    return claims_pb2_grpc.ClaimsServiceStub(channels["claims"])


@pytest.fixture(scope="package")
def vault_stub(channels):
    return claims_pb2_grpc.VaultServiceStub(channels["claims"])


@pytest.fixture(scope="package")
def payments_stub(channels):
    return payments_pb2_grpc.PaymentsServiceStub(channels["payments"])


@pytest.fixture(scope="package")
def browser_stub(channels):
    return browser_pb2_grpc.BrowserServiceStub(channels["browser"])


@pytest.fixture(scope="session")
def wheelhouse(tmp_path_factory) -> WheelHouse:
    """Services installed from their wheels, one virtualenv each per session
    (tests/test_wheels.py, tests/test_manifests.py)."""
    return WheelHouse(tmp_path_factory.mktemp("wheelhouse"))


@pytest.fixture(scope="package")
def made_run(tmp_path_factory):
    """The whole system as `make run` starts it (its per-service tokens,
    the demo shop and app), shared by the tests that drive it from outside."""
    run = MakeRun(
        ROOT, tmp_path_factory.mktemp("made-run") / "var", f"nod_test_run_{uuid.uuid4().hex[:8]}"
    )
    # A loaded machine (other test runs share it) can take minutes to start it.
    run.start(timeout_s=400)
    yield run
    run.stop()
    run.clean()
