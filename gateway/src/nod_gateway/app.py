"""The FastAPI app: routes, static files, and the one place failures become
pages a person can read."""

import asyncio
import contextlib
import pathlib

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException

from nod_gateway.client_address import networks
from nod_gateway.nudges import nudge_forever
from nod_gateway.peers import ServiceCallFailed
from nod_gateway.people import passwords, pruning
from nod_gateway.routes import ROUTERS
from nod_gateway.settings import GatewaySettings
from nod_gateway.web.errors import Problem, explain
from nod_gateway.web.fields import BadField
from nod_gateway.web.metrics import RequestMetrics
from nod_gateway.web.render import fragment, is_fragment, page
from nod_gateway.web.security import SecurityHeaders
from nod_gateway.web.sessions import Refused, SignInNeeded
from nod_gateway.web.trace_context import TraceContextFromProxiesOnly
from nod_gateway.wiring import build
from nodkit import tracing
from nodkit.logging import get_logger
from nodkit.metrics_collectors import DatabasePools
from nodkit.metrics_server import MetricsServer

log = get_logger("nod_gateway")
STATIC = pathlib.Path(__file__).resolve().parent / "static"


def create_app(settings: GatewaySettings) -> FastAPI:
    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI):
        # Before the first request is taken (people/passwords.py says why).
        await asyncio.to_thread(passwords.prepare)
        # Built on the server's own event loop: gRPC channels belong to one.
        parts = build(settings)
        app.state.parts = parts
        metrics = None
        if settings.metrics_listen:
            # On uvicorn's loop too, so it closes with the app on SIGTERM.
            metrics = MetricsServer("gateway", [DatabasePools("gateway", parts.engine)])
            await metrics.start(settings.metrics_listen)
        app.state.metrics = metrics
        pruner = asyncio.ensure_future(pruning.prune_on_schedule(parts.engine, settings))
        background = [pruner]
        if settings.nudging:
            # Every replica runs it: each wait's email is claimed in the database.
            background.append(
                asyncio.ensure_future(nudge_forever(settings, parts.engine, parts.peers))
            )
        try:
            yield
        finally:
            for work in background:
                work.cancel()
            for work in background:
                with contextlib.suppress(asyncio.CancelledError):
                    await work
            if metrics is not None:
                await metrics.stop()
            await parts.close()

    app = FastAPI(title="nod", docs_url=None, redoc_url=None, openapi_url=None, lifespan=lifespan)
    app.add_middleware(SecurityHeaders)
    # Outermost: it sees the status of every answer, the failure pages' too.
    app.add_middleware(RequestMetrics)
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    for router in ROUTERS:
        app.include_router(router)
    _handle_failures(app)
    if tracing.enabled():
        from opentelemetry.instrumentation.fastapi import FastAPIInstrumentor

        # Outermost: the request's span is current in every middleware and route.
        FastAPIInstrumentor.instrument_app(app, excluded_urls="/static/.*,/healthz")
        # The instrumentation wraps the stack Starlette builds (its
        # build_middleware_stack); this wraps that once more, outside it.
        proxies = networks(settings.trusted_proxies)
        build_traced = app.build_middleware_stack
        app.build_middleware_stack = lambda: TraceContextFromProxiesOnly(  # type: ignore[method-assign]
            build_traced(), proxies
        )
    return app


def problem_page(request: Request, problem: Problem) -> Response:
    if is_fragment(request):
        html = fragment(request, "_problem.html", problem=problem)
        # htmx swaps only 2xx answers by default: the message goes in place
        # with the failure's status kept for scripts and logs.
        return HTMLResponse(html, status_code=200, headers={"x-nod-status": str(problem.status)})
    return page(request, "problem.html", status=problem.status, problem=problem)


def _handle_failures(app: FastAPI) -> None:
    @app.exception_handler(SignInNeeded)
    async def sign_in(request: Request, _error: SignInNeeded) -> Response:
        if request.method == "GET" and not request.url.path.endswith("/events"):
            return RedirectResponse(f"/signin?next={request.url.path}", status_code=303)
        return page(
            request,
            "problem.html",
            status=401,
            problem=Problem(401, "Please sign in", "Your session ended; nothing was done."),
        )

    @app.exception_handler(Refused)
    async def refused(request: Request, _error: Refused) -> Response:
        log.warning("gateway.post_refused", path=request.url.path)
        problem = Problem(
            403, "Refused", "This form did not come from nod's own page; nothing was done."
        )
        return problem_page(request, problem)

    @app.exception_handler(BadField)
    async def bad_field(request: Request, error: BadField) -> Response:
        return problem_page(request, Problem(400, "Please check what you entered", str(error)))

    @app.exception_handler(ServiceCallFailed)
    async def service_failed(request: Request, failure: ServiceCallFailed) -> Response:
        problem = explain(failure)
        log.warning(
            "gateway.service_call_failed",
            service=failure.service,
            code=failure.error.code.name,
            reason=failure.error.reason,
            path=request.url.path,
        )
        return problem_page(request, problem)

    @app.exception_handler(HTTPException)
    async def http_error(request: Request, error: HTTPException) -> Response:
        title = "Not found" if error.status_code == 404 else "That can't be done"
        message = "There is nothing here, or it isn't yours."
        if error.status_code != 404:
            message = str(error.detail)
        return problem_page(request, Problem(error.status_code, title, message))

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, _error: RequestValidationError) -> Response:
        return problem_page(request, Problem(404, "Not found", "There is nothing here."))

    @app.exception_handler(Exception)
    async def unexpected(request: Request, error: Exception) -> Response:
        # The detail goes to the log (through the redactor), never to the page.
        log.error("gateway.unexpected", path=request.url.path, error=type(error).__name__)
        problem = Problem(
            500, "Something went wrong", "nod hit an unexpected problem. If you asked for a"
            " change, it may have happened: check before trying again.",
        )  # fmt: skip
        return problem_page(request, problem)
