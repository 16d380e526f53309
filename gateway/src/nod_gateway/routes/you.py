"""You: the person's own settings. Today one: the email address nod nudges
when it waits for them and no page of theirs is open (nudges.py). A bad
address is refused in words, and nothing is changed."""

from fastapi import APIRouter, Request
from fastapi.responses import RedirectResponse, Response

from nod_gateway import email_address
from nod_gateway.people import store
from nod_gateway.web.render import page
from nod_gateway.web.sessions import PostedForm, SignedIn

router = APIRouter()
NOTES = {
    "saved": "Saved. nod emails this address when it waits for you and no nod page is open.",
    "removed": "Removed. nod emails you nothing.",
}


async def _you_page(request: Request, person: str, status: int = 200, **values) -> Response:
    parts = request.app.state.parts
    values.setdefault("note", "")
    values.setdefault("error", "")
    return page(
        request,
        "you.html",
        status=status,
        address=await store.nudge_address_of(parts.engine, person),
        nudging=parts.settings.nudging,
        delay_s=parts.settings.nudge_delay_s,
        max_length=email_address.MAX_LENGTH,
        **values,
    )


@router.get("/you")
async def you_page(request: Request, asked: SignedIn, note: str = "") -> Response:
    return await _you_page(request, asked.session.person, note=NOTES.get(note, ""))


@router.post("/you/email")
async def set_email(request: Request, asked: PostedForm) -> Response:
    raw = asked.form.get("address", "")
    typed = raw if isinstance(raw, str) else ""
    # Read raw: a line break or NUL is refused, never stripped into an address.
    address = typed.strip(" \t")
    problem = email_address.address_problem(address)
    if problem is not None:
        # Not shown back: whatever was typed (a card number by mistake) stays unshown.
        return await _you_page(request, asked.session.person, 400, error=problem)
    await store.set_nudge_address(request.app.state.parts.engine, asked.session.person, address)
    return RedirectResponse("/you?note=saved", status_code=303)


@router.post("/you/email/remove")
async def remove_email(request: Request, asked: PostedForm) -> Response:
    await store.set_nudge_address(request.app.state.parts.engine, asked.session.person, None)
    return RedirectResponse("/you?note=removed", status_code=303)
