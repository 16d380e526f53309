"""Pages and fragments from the Jinja2 templates (autoescaped), with what
every page needs: the person, the CSRF token for its forms, the nav."""

import pathlib
from typing import Any

from fastapi import Request
from fastapi.responses import HTMLResponse
from fastapi.templating import Jinja2Templates

from nod_gateway.web import words

TEMPLATES = Jinja2Templates(directory=pathlib.Path(__file__).resolve().parent.parent / "templates")
TEMPLATES.env.globals["words"] = words
TEMPLATES.env.filters["when"] = words.when


def is_fragment(request: Request) -> bool:
    """htmx asks for the part it swaps; a plain form post gets a whole page."""
    return request.headers.get("hx-request") == "true"


def page(request: Request, name: str, status: int = 200, **values: Any) -> HTMLResponse:
    session = getattr(request.state, "session", None)
    # Their name: their id is for the services.
    values.setdefault("person", session.name if session else None)
    values.setdefault("csrf", session.csrf_token if session else "")
    return TEMPLATES.TemplateResponse(request, name, values, status_code=status)


def fragment(request: Request, name: str, **values: Any) -> str:
    session = getattr(request.state, "session", None)
    values.setdefault("csrf", session.csrf_token if session else "")
    values.setdefault("request", request)
    return TEMPLATES.get_template(name).render(values)
