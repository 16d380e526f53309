"""Each service and the gateway, installed from its own wheels into a fresh
virtualenv outside the checkout (as its image installs it), migrates an
empty database and serves: gRPC health SERVING, or /healthz for the gateway.
Nothing here skips: a missing wheel, script, migration or dependency fails."""

import asyncio
import json
import pathlib
import signal

import httpx
import pytest

from nodkit.client import wait_until_answering, wait_until_serving
from nodtest.database import create_test_database, drop_test_database
from nodtest.processes import free_port

from .wheelhouse import Installed, outside_the_checkout, run_once, start

DATABASE_SERVICES = ["claims", "approvals", "payments", "tasks"]
# A test may be the first to build its service's wheels and venv.
pytestmark = pytest.mark.timeout(600)


@pytest.fixture
def empty_database():
    url = create_test_database()
    yield url
    drop_test_database(url)


@pytest.fixture
def elsewhere(tmp_path) -> pathlib.Path:
    """A working directory outside the checkout, as a container's is."""
    assert outside_the_checkout(tmp_path)
    return tmp_path


def settings_for(name: str, database_url: str, service_token, vault_key, port: int) -> dict:
    return {
        "NOD_DATABASE_URL": database_url,
        "NOD_SERVICE_TOKEN": service_token.get_secret_value(),
        "NOD_VAULT_KEY": vault_key,
        "NOD_INSTANCE_ID": f"{name}-from-wheels",
        f"NOD_{name.upper()}_LISTEN": f"127.0.0.1:{port}",
        "NOD_MIGRATION_POLL_S": "0.2",
    }


def assert_installed_apart(installed: Installed, module: str, env, cwd) -> None:
    """The venv imports the service and its plumbing from itself, and has
    none of the checkout's test support."""
    probe = (
        "import importlib.util, json, sys;"
        f"import {module}, nodkit, nod;"
        f"print(json.dumps([{module}.__file__, nodkit.__file__, list(nod.__path__),"
        " importlib.util.find_spec('nodtest') is None, sys.path]))"
    )
    python = str(installed.venv / "bin" / "python")
    found = json.loads(run_once([python, "-c", probe], env, cwd).stdout)
    service_file, nodkit_file, protos_path, no_nodtest, path = found
    for where in (service_file, nodkit_file, *protos_path):
        assert pathlib.Path(where).is_relative_to(installed.venv), (where, path)
    assert no_nodtest, "the service's venv has the checkout's test support in it"


@pytest.mark.parametrize("name", DATABASE_SERVICES)
async def test_a_service_migrates_and_serves_from_its_own_wheels(
    name, wheelhouse, empty_database, elsewhere, service_token, vault_key
):
    installed = await asyncio.to_thread(wheelhouse.install, f"nod-{name}")
    port = free_port()
    settings = settings_for(name, empty_database, service_token, vault_key, port)
    env = installed.env(settings, home=elsewhere)
    assert_installed_apart(installed, f"nod_{name}", env, elsewhere)

    migrated = run_once(installed.command(f"nod-{name}", "migrate"), env, elsewhere)
    assert "migrations.at_head" in migrated.stdout + migrated.stderr
    running = start(installed.command(f"nod-{name}", "serve"), env, elsewhere, elsewhere / "log")
    try:
        await wait_until_serving(f"127.0.0.1:{port}", timeout_s=60)
    except TimeoutError:
        pytest.fail(f"nod-{name} from its wheels never said SERVING:\n{running.log_text()}")
    finally:
        exit_code = running.stop()
    assert exit_code == 0, running.log_text()


async def test_the_browser_serves_from_its_own_wheels_with_debian_chromium(
    wheelhouse, empty_database, elsewhere, service_token, vault_key
):
    """Its boot releases its claims at the claims service first, so claims
    runs too, from its own wheels."""
    claims = await asyncio.to_thread(wheelhouse.install, "nod-claims")
    browser = await asyncio.to_thread(wheelhouse.install, "nod-browser")
    claims_port, browser_port = free_port(), free_port()
    claims_env = claims.env(
        settings_for("claims", empty_database, service_token, vault_key, claims_port), elsewhere
    )
    run_once(claims.command("nod-claims", "migrate"), claims_env, elsewhere)
    browser_env = browser.env(
        {
            "NOD_SERVICE_TOKEN": service_token.get_secret_value(),
            "NOD_INSTANCE_ID": "browser-from-wheels",
            "NOD_BROWSER_LISTEN": f"127.0.0.1:{browser_port}",
            "NOD_CLAIMS_ADDR": f"127.0.0.1:{claims_port}",
            "NOD_BROWSER_CHROMIUM": "/usr/bin/chromium-headless-shell",
        },
        home=elsewhere,
    )
    assert_installed_apart(browser, "nod_browser", browser_env, elsewhere)
    # Nothing to migrate, and saying so is a success: the Job pattern is the same.
    run_once(browser.command("nod-browser", "migrate"), browser_env, elsewhere)
    claims_running = start(
        claims.command("nod-claims", "serve"), claims_env, elsewhere, elsewhere / "claims.log"
    )
    browser_running = start(
        browser.command("nod-browser", "serve"), browser_env, elsewhere, elsewhere / "browser.log"
    )
    try:
        await wait_until_serving(f"127.0.0.1:{claims_port}", timeout_s=60)
        try:
            await wait_until_serving(f"127.0.0.1:{browser_port}", timeout_s=60)
        except TimeoutError:
            pytest.fail(f"nod-browser never said SERVING:\n{browser_running.log_text()}")
    finally:
        browser_exit = browser_running.stop()
        claims_running.stop()
    assert browser_exit == 0, browser_running.log_text()


async def test_the_gateway_migrates_and_answers_from_its_own_wheels(
    wheelhouse, empty_database, elsewhere, service_token
):
    installed = await asyncio.to_thread(wheelhouse.install, "nod-gateway")
    port = free_port()
    env = installed.env(
        {
            "NOD_DATABASE_URL": empty_database,
            "NOD_SERVICE_TOKEN": service_token.get_secret_value(),
            "NOD_GATEWAY_LISTEN": f"127.0.0.1:{port}",
        },
        home=elsewhere,
    )
    assert_installed_apart(installed, "nod_gateway", env, elsewhere)
    run_once(installed.command("nod-gateway", "migrate"), env, elsewhere)
    running = start(installed.command("nod-gateway", "serve"), env, elsewhere, elsewhere / "log")
    try:
        url = f"http://127.0.0.1:{port}"
        await asyncio.to_thread(wait_until_answering, f"{url}/healthz", 60)
        # Its templates and static files came with the wheel too.
        async with httpx.AsyncClient(base_url=url, timeout=5) as client:
            assert (await client.get("/static/nod.css")).status_code == 200
            page = await client.get("/signin")
            assert page.status_code == 200 and "<form" in page.text
        # The operator's nodctl came with the image, and reads its people store.
        people = run_once(installed.command("nodctl", "people", "list", "--json"), env, elsewhere)
        assert json.loads(people.stdout) == [], people.stdout
    except (TimeoutError, httpx.HTTPError) as error:
        pytest.fail(f"nod-gateway from its wheels: {error}\n{running.log_text()}")
    finally:
        exit_code = running.stop()
    # uvicorn shuts down gracefully, then ends by the signal it was sent.
    assert exit_code in (0, -signal.SIGTERM), running.log_text()
    assert '"server.stopped"' in running.log_text()
