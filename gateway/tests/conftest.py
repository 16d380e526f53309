"""The gateway's tests drive the whole running system the way a person
meets it: `make run` (scripts/run.py) in a folder and on ports of its own,
and a real headless Chromium (Debian's, through Playwright) as the person's
browser. Every page a test opens is checked for browser console errors;
screenshots land in the folder NOD_TEST_ARTIFACTS names (default
var/test-artifacts/)."""

import os
import pathlib
import uuid

import pytest
from playwright.async_api import async_playwright, expect

from nod_browser.adapters.chromium import LAUNCH_ARGS
from nodtest.make_run import MakeRun

from .people import Person

# A page's answer to a click can take seconds beside the other test
# processes on two cores: an assertion waits as long as the page's own
# actions do (people.py), not Playwright's 5 s. Seen: a yes taking longer.
expect.set_options(timeout=20_000)

ROOT = pathlib.Path(__file__).resolve().parents[2]
ARTIFACTS = pathlib.Path(os.environ.get("NOD_TEST_ARTIFACTS") or ROOT / "var/test-artifacts")
CHROMIUM = os.environ.get("NOD_CHROMIUM", "/usr/bin/chromium-headless-shell")


@pytest.fixture(scope="package")
def nod(tmp_path_factory):
    """The whole system, up once for the gateway's tests."""
    run = MakeRun(
        ROOT,
        tmp_path_factory.mktemp("make-run") / "var",
        f"nod_test_web_{uuid.uuid4().hex[:8]}",
        # Short limits, so the tests of what happens after them run quickly.
        NOD_GATEWAY_SIGN_IN_FAILURES="5",
        NOD_TASKS_BROWSER_SESSION_WAIT_S="6",
    )
    # A loaded machine (other test runs share it) can take minutes to start it.
    run.urls = run.start(timeout_s=400)  # type: ignore[attr-defined]
    yield run
    run.stop()
    run.clean()


def second_gateway_env(nod: MakeRun, address: str, instance_id: str) -> dict[str, str]:
    """The environment of a gateway a test starts beside make run's: the
    same system, an address and instance of its own, no metrics (make
    run's gateway holds the system's metrics address)."""
    return {
        **nod.env,
        "NOD_DATABASE_URL": nod.database_url(),
        "NOD_SERVICE_TOKEN": (nod.var / "service-token").read_text().strip(),
        "NOD_GATEWAY_METRICS_LISTEN": "",
        "NOD_GATEWAY_LISTEN": address,
        "NOD_INSTANCE_ID": instance_id,
    }


@pytest.fixture(scope="session")
async def chromium():
    playwright = await async_playwright().start()
    browser = await playwright.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS)
    yield browser
    await browser.close()
    await playwright.stop()


@pytest.fixture
async def ada(nod, chromium, request):
    """The demo person, signed in, in a browser of their own."""
    person = Person(nod, chromium, "ada", nod.web_password(), ARTIFACTS / request.node.name)
    await person.open()
    await person.sign_in()
    yield person
    await person.close()


@pytest.fixture
async def stranger(nod, chromium, request):
    """Another person, signed in: they must never see or touch ada's things."""
    name = f"bea-{uuid.uuid4().hex[:6]}"
    person = Person(nod, chromium, name, nod.add_person(name), ARTIFACTS / request.node.name)
    await person.open()
    await person.sign_in()
    yield person
    await person.close()
