"""Who is asking: the session cookie, and for every post the CSRF token and
same-origin check. Routes take `Depends(signed_in)` for pages and
`Depends(posted)` for actions."""

import urllib.parse
from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, Request
from starlette.datastructures import FormData, UploadFile

from nod_gateway.peers import Nod
from nod_gateway.people import store
from nod_gateway.people.store import Session
from nod_gateway.web.fields import BadField
from nod_gateway.web.security import same_origin, tokens_match

COOKIE = "nod_session"
# A form is a few short fields: anything bigger is refused before parsing.
MAX_FIELDS = 40
MAX_PART_BYTES = 64 * 1024


class SignInNeeded(Exception):
    pass


class Refused(Exception):
    """A post that failed the origin or CSRF check: 403, nothing done."""


@dataclass(frozen=True)
class Asking:
    session: Session
    nod: Nod


@dataclass(frozen=True)
class Posted(Asking):
    form: FormData


async def signed_in(request: Request) -> Asking:
    token = request.cookies.get(COOKIE)
    parts = request.app.state.parts
    session = await store.session_for(parts.engine, token) if token else None
    if session is None:
        raise SignInNeeded()
    request.state.session = session
    return Asking(session, parts.peers.for_person(session.person))


async def read_form(request: Request) -> FormData:
    """The posted fields. A plain web form is read here, so a field that is
    too long is refused by its name; anything else (multipart) by Starlette's
    own limits."""
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind != "application/x-www-form-urlencoded":
        return await request.form(max_files=0, max_fields=MAX_FIELDS, max_part_size=MAX_PART_BYTES)
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_FIELDS * MAX_PART_BYTES:
            raise BadField("form", "This form is far too large; nothing was changed.")
    try:
        items = urllib.parse.parse_qsl(
            body.decode("utf-8"), keep_blank_values=True, max_num_fields=MAX_FIELDS
        )
    except (UnicodeDecodeError, ValueError):
        raise BadField("form", "This form could not be read; nothing was changed.") from None
    for name, value in items:
        if len(value.encode()) > MAX_PART_BYTES:
            raise BadField(name, f"{name} is longer than {MAX_PART_BYTES // 1024} KB.")
    fields: list[tuple[str, str | UploadFile]] = list(items)
    return FormData(fields)


async def posted(request: Request) -> Posted:
    if not same_origin(request.headers):
        raise Refused()
    asking = await signed_in(request)
    form = await read_form(request)
    given = form.get("csrf")
    if not tokens_match(asking.session.csrf_token, given if isinstance(given, str) else None):
        raise Refused()
    return Posted(asking.session, asking.nod, form)


# What routes declare: `asked: SignedIn` for a page, `asked: PostedForm` for an action.
SignedIn = Annotated[Asking, Depends(signed_in)]
PostedForm = Annotated[Posted, Depends(posted)]
