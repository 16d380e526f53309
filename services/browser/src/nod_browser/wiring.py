"""Builds the browser runner from its settings: the address guard every
request goes through, one Chromium per process, the live sessions, the
claims client (and the ends it still has to record), the servicer;
the boot release (before SERVING) and the holder lease renewal (G12).
Nothing else constructs them."""

from nod.browser.v1 import browser_pb2, browser_pb2_grpc
from nod_browser.adapters.chromium import Chromium, find_chromium
from nod_browser.adapters.claims_client import ClaimsClient
from nod_browser.adapters.egress_proxy import EgressProxy, Resolver, SystemResolver
from nod_browser.adapters.own_addresses import own_addresses
from nod_browser.adapters.painter import Painter
from nod_browser.api.browser import BrowserServicer
from nod_browser.app.claim_ends import ClaimEnds
from nod_browser.app.private_entry import PrivateEntries
from nod_browser.app.sessions import Sessions
from nod_browser.recovery import release_previous_life
from nod_browser.settings import BrowserSettings
from nodkit.background import every
from nodkit.metrics_collectors import Reading
from nodkit.service import GrpcService, Service

SERVICES = browser_pb2.DESCRIPTOR.services_by_name


async def build(
    settings: BrowserSettings,
    *,
    chromium: Chromium | None = None,
    resolver: Resolver | None = None,
    egress: EgressProxy | None = None,
) -> Service:
    """Tests may share one Chromium between runners (`chromium`); it is then
    theirs to close. They may also hand in the names the address guard
    resolves (`resolver`), or the guard itself (`egress`, started: then
    theirs to stop, to see health notice)."""
    if chromium is None:
        find_chromium(settings.chromium)  # no browser: said before anything starts
    own_egress = egress is None
    if egress is None:
        resolver = resolver or SystemResolver()
        egress = EgressProxy(
            settings.allowed_networks,
            never=await own_addresses(settings, resolver),
            resolver=resolver,
            connect_timeout_s=settings.egress_connect_timeout_s,
        )
        await egress.start()
    own_chromium = chromium is None
    try:
        browser = chromium or await Chromium.launch(settings.chromium, egress.proxy_for())
    except BaseException:
        if own_egress:
            await egress.close()
        raise
    claims = ClaimsClient(
        settings.claims_addr,
        settings.own_token("browser"),
        settings.instance_id,
        settings.claims_timeout_s,
        tls=settings.tls(),
    )
    sessions = Sessions(settings.max_sessions, closed=egress.forget)
    ends = ClaimEnds(claims, settings.end_retry_first_s, settings.end_retry_max_s)
    entries = PrivateEntries(claims, ends, settings)
    # Pages' pictures are painted over in the runner's own offline page.
    painter = Painter(browser)

    async def renew() -> None:
        # Well inside the claims service's lease ttl; a failed round is tried again.
        await every(settings.lease_renew_s, claims.renew_holder, event="holder.renew")

    async def close_idle() -> None:
        # Checked ten times per idle limit (at least once a minute): a
        # session outlives its limit by a tenth of it at most.
        interval_s = min(settings.session_idle_s / 10, 60.0)
        await every(
            interval_s,
            lambda: sessions.close_idle(settings.session_idle_s),
            event="sessions.close_idle",
        )

    async def close() -> None:
        await sessions.close_all()  # in-flight entries end UNCERTAIN first
        await ends.close()  # what is still unrecorded, the next boot's release ends
        await claims.close()
        await painter.close()
        if own_chromium:
            await browser.close()
        if own_egress:
            await egress.close()

    return Service(
        name="browser",
        grpc_services=[
            GrpcService(
                SERVICES["BrowserService"],
                browser_pb2_grpc.add_BrowserServiceServicer_to_server,
                BrowserServicer(browser, egress, sessions, entries, settings, painter),
            )
        ],
        boot=lambda: release_previous_life(claims, settings.migration_poll_s),
        background=[renew, close_idle],
        # A runner whose guard is gone can't load a page: NOT_SERVING.
        probe=egress.probe,
        close=close,
        collectors=[
            Reading(
                "nod_browser_sessions_open",
                "Chromium sessions (one isolated context each) open in this runner",
                "browser",
                lambda: sessions.open_count,
            )
        ],
    )
