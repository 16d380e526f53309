"""Signing in and out. Failures are counted per name and per address in the
database (so every replica sees them), and past the limit a try waits."""

import secrets

from fastapi import APIRouter, Request
from fastapi.responses import RedirectResponse, Response

from nod_gateway.client_address import client_address
from nod_gateway.people import passwords, store
from nod_gateway.web import fields
from nod_gateway.web.render import page
from nod_gateway.web.security import same_origin, tokens_match
from nod_gateway.web.sessions import COOKIE, PostedForm, Refused, read_form
from nodkit.logging import get_logger

router = APIRouter()
log = get_logger("nod_gateway.auth")
# Before there is a session, the sign-in form is bound to this cookie
# (double submit), so another site can't sign a person in as someone else.
SIGN_IN_COOKIE = "nod_sign_in"


def _safe_next(target: str | None) -> str:
    """Only a path on this site: never another host (`//evil`, `https:`)."""
    if target and target.startswith("/") and not target.startswith(("//", "/\\")):
        return target
    return "/tasks"


@router.get("/signin")
async def sign_in_page(request: Request, next: str = "/tasks") -> Response:
    binding = request.cookies.get(SIGN_IN_COOKIE) or secrets.token_urlsafe(32)
    response = page(request, "signin.html", binding=binding, next=_safe_next(next))
    _set_cookie(request, response, SIGN_IN_COOKIE, binding, max_age=3600)
    return response


@router.post("/signin")
async def sign_in(request: Request) -> Response:
    if not same_origin(request.headers):
        raise Refused()
    form = await read_form(request)
    binding = form.get("binding")
    expected = request.cookies.get(SIGN_IN_COOKIE)
    if not expected or not tokens_match(expected, binding if isinstance(binding, str) else None):
        raise Refused()
    name = fields.text(form, "name", max_length=128)
    password = fields.text(form, "password", max_length=passwords.MAX_LENGTH)
    target = _safe_next(fields.text(form, "next", max_length=500, required=False))
    parts = request.app.state.parts
    settings = parts.settings
    address = client_address(request, parts.trusted_proxies)
    by_name, by_address = await store.recent_failures(
        parts.engine, name, address, settings.sign_in_window_s
    )
    if by_name >= settings.sign_in_failures or by_address >= 10 * settings.sign_in_failures:
        log.warning("gateway.sign_in_limited", name=name, address=address)
        minutes = settings.sign_in_window_s // 60
        message = f"Too many tries. Wait {minutes} minutes, then try again."
        return page(request, "signin.html", 429, binding=expected, next=target, error=message)
    known = await store.sign_in_as(parts.engine, name)
    ok = await passwords.matches(known.password_hash if known else None, password)
    await store.record_attempt(parts.engine, name, address, ok)
    if known is None or not ok:
        log.info("gateway.sign_in_failed", name=name, address=address)
        message = "That name and password don't match."
        return page(request, "signin.html", 401, binding=expected, next=target, error=message)
    ttl_s = settings.session_ttl_s
    token, _session = await store.open_session(parts.engine, known.person, name, ttl_s)
    log.info("gateway.signed_in", name=name, person=known.person)
    response = RedirectResponse(target, status_code=303)
    _set_cookie(request, response, COOKIE, token, max_age=settings.session_ttl_s)
    response.delete_cookie(SIGN_IN_COOKIE, path="/")
    return response


@router.post("/signout")
async def sign_out(request: Request, asked: PostedForm) -> Response:
    await store.close_session(request.app.state.parts.engine, request.cookies[COOKIE])
    response = RedirectResponse("/signin", status_code=303)
    response.delete_cookie(COOKIE, path="/")
    return response


def _set_cookie(request: Request, response: Response, name: str, value: str, max_age: int) -> None:
    response.set_cookie(
        name,
        value,
        max_age=max_age,
        path="/",
        httponly=True,
        samesite="lax",
        secure=request.app.state.parts.settings.secure_cookies,
    )
