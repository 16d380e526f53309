"""nod whole, for the hostile pages (nodtest.hostile): claims, approvals,
payments, the browser runner and the tasks service, each built by its own
wiring and started the way `serve` starts it, in this process (their log
lines reach log_tee), on a database of their own, the tasks service asking
the obedient model stand-in. The browser may reach the hostile sites'
networks only, the approvals service the person's app's."""

import contextlib
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass

from pydantic import SecretStr

from nod_approvals import MIGRATIONS as APPROVALS_MIGRATIONS
from nod_approvals import wiring as approvals_wiring
from nod_approvals.settings import ApprovalsSettings
from nod_browser import wiring as browser_wiring
from nod_browser.adapters.chromium import Chromium
from nod_browser.settings import BrowserSettings
from nod_claims import MIGRATIONS as CLAIMS_MIGRATIONS
from nod_claims import wiring as claims_wiring
from nod_claims.settings import ClaimsSettings
from nod_payments import MIGRATIONS as PAYMENTS_MIGRATIONS
from nod_payments import wiring as payments_wiring
from nod_payments.settings import PaymentsSettings
from nod_tasks import MIGRATIONS as TASKS_MIGRATIONS
from nod_tasks import wiring as tasks_wiring
from nod_tasks.settings import TasksSettings
from nodkit import service
from nodkit.client import open_channel
from nodtest import observed
from nodtest.database import create_test_database, drop_test_database, libpq_url
from nodtest.hostile.person import Services
from nodtest.hostile.suite import APP_NETWORK, SITE_NETWORKS
from nodtest.processes import free_port


@dataclass(frozen=True)
class System:
    services: Services
    database_url: str
    # The tasks service's /metrics.
    tasks_metrics: str


@contextlib.asynccontextmanager
async def hostile_system(token: SecretStr, vault_key: str, model_url: str) -> AsyncIterator[System]:
    url = create_test_database()
    for migrations in (
        CLAIMS_MIGRATIONS,
        APPROVALS_MIGRATIONS,
        PAYMENTS_MIGRATIONS,
        TASKS_MIGRATIONS,
    ):
        migrations.upgrade(url)
    run = uuid.uuid4().hex[:8]
    # Eight tasks at once need few connections; the machine's PostgreSQL
    # is shared with other test processes.
    shared = {"database_url": url, "service_token": token, "db_pool_size": 5}
    running: list[service.RunningService] = []
    chromium = await Chromium.launch()

    async def start(build, settings):
        served = await service.start(await build(settings), settings, listen="127.0.0.1:0")
        running.append(served)
        return served.address

    try:
        claims = await start(
            claims_wiring.build,
            ClaimsSettings(**shared, vault_key=vault_key, instance_id=f"hostile-claims-{run}"),
        )
        approvals = await start(
            approvals_wiring.build,
            ApprovalsSettings(
                **shared,
                vault_key=vault_key,
                instance_id=f"hostile-approvals-{run}",
                allowed_networks=APP_NETWORK,
            ),
        )
        payments = await start(
            payments_wiring.build,
            PaymentsSettings(**shared, instance_id=f"hostile-payments-{run}", claims_addr=claims),
        )

        async def browser_build(settings):
            return await browser_wiring.build(settings, chromium=chromium)

        browser = await start(
            browser_build,
            BrowserSettings(
                service_token=token,
                claims_addr=claims,
                instance_id=f"hostile-browser-{run}",
                # Where the browser may go besides public addresses (the
                # hostile sites on 127.0.0.2-5; never 127.0.0.1), once it
                # takes the setting (NOD_BROWSER_ALLOWED_NETWORKS).
                allowed_networks=SITE_NETWORKS,
            ),
        )
        tasks_metrics = f"127.0.0.1:{free_port()}"
        tasks = await start(
            tasks_wiring.build,
            TasksSettings(
                **shared,
                instance_id=f"hostile-tasks-{run}",
                claims_addr=claims,
                approvals_addr=approvals,
                payments_addr=payments,
                browser_addr=browser,
                model_url=model_url,
                model_timeout_s=10.0,
                outside_waits_poll_s=0.05,
                watch_poll_s=0.05,
                metrics_listen=tasks_metrics,
            ),
        )
        channels = [open_channel(a) for a in (claims, approvals, payments, tasks, browser)]
        services = Services(*channels, token=token)
        yield System(services, libpq_url(url), f"http://{tasks_metrics}")
        for channel in channels:
            await channel.close()
    finally:
        for served in reversed(running):
            await served.stop()
        await chromium.close()
        # What the system left in its database is scanned for private
        # values by the session too.
        observed.keep_database(libpq_url(url))
        drop_test_database(url)
