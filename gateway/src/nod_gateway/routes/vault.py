"""The vault: the person's saved logins and cards, shown only as the masked
values the vault service answers with; add one, delete one. A typed
password or card number goes from the form straight to PutItem and is never
shown again, not even in the form that comes back after a refusal. Each
form carries a request id made when the page is shown, so the same form
posted twice (a double click, a resend after a lost answer) saves once."""

import uuid

from fastapi import APIRouter, Request
from fastapi.responses import RedirectResponse, Response

from nod.claims.v1 import claims_pb2 as claims
from nod_gateway.peers import Nod, ServiceCallFailed
from nod_gateway.routes.saved_forms import Field, Refusal, kept, read, refusal
from nod_gateway.web import fields
from nod_gateway.web.render import page
from nod_gateway.web.sessions import PostedForm, SignedIn

router = APIRouter()
# As many as the vault keeps for one login (claims' MAX_EQUIVALENT_ORIGINS).
MAX_OTHER_SITES = 20

LOGIN = (
    Field("label", "Label", 200, required=False, service_name="item.label"),
    Field("origin", "Site address", 512, service_name="item.origin"),
    Field(
        "equivalent_origins",
        "Other addresses of this site",
        MAX_OTHER_SITES * 513,
        required=False,
        service_name="item.equivalent_origins",
    ),
    Field("username", "Username", 1024, service_name="item.fields.username"),
    Field("password", "Password", 1024, secret=True, service_name="item.fields.password"),
)
CARD = (
    Field("label", "Label", 200, required=False, service_name="item.label"),
    Field("number", "Card number", 40, secret=True, service_name="item.fields.number"),
    Field("expiry", "Expiry", 7, service_name="item.fields.expiry"),
    Field(
        "holder_name",
        "Name on the card",
        200,
        required=False,
        service_name="item.fields.holder_name",
    ),
)
NOTES = {
    "login-saved": "Login saved. Only a masked copy is ever shown.",
    "card-saved": "Card saved. Only its last four digits are ever shown.",
    "deleted": "Deleted. nod can no longer use it.",
}


async def _items(nod: Nod) -> tuple[list[claims.VaultItem], list[claims.VaultItem]]:
    items = (await nod.vault.ListItems(claims.ListItemsRequest())).items
    logins = [i for i in items if i.kind == claims.ENTRY_KIND_SAVED_LOGIN]
    cards = [i for i in items if i.kind == claims.ENTRY_KIND_CARD]
    return logins, cards


async def _vault_page(request: Request, nod: Nod, status: int = 200, **values) -> Response:
    logins, cards = await _items(nod)
    values.setdefault("failed", "")
    values.setdefault("kept", {})
    # A form shown again after a refusal gets a new one: nothing was saved.
    values.setdefault("request_id", uuid.uuid4().hex)
    return page(request, "vault.html", status=status, logins=logins, cards=cards, **values)


@router.get("/vault")
async def vault_page(request: Request, asked: SignedIn, note: str = "") -> Response:
    return await _vault_page(request, asked.nod, note=NOTES.get(note, ""))


async def _save(
    request: Request, asked, specs: tuple[Field, ...], which: str, item_for
) -> Response:
    try:
        values = read(asked.form, specs)
        # Optional: a page shown before forms carried one still posts (and saves each time).
        request_id = fields.text(asked.form, "request_id", max_length=64, required=False)
        try:
            await asked.nod.vault.PutItem(
                claims.PutItemRequest(item=item_for(values), request_id=request_id)
            )
        except ServiceCallFailed as failure:
            raise refusal(failure, specs) from None
    except Refusal as refused:
        return await _vault_page(
            request, asked.nod, 400, failed=which, error=str(refused), kept=kept(asked.form, specs)
        )
    return RedirectResponse(f"/vault?note={which}-saved", status_code=303)


@router.post("/vault/logins")
async def add_login(request: Request, asked: PostedForm) -> Response:
    def login(values: dict[str, str]) -> claims.VaultItem:
        return claims.VaultItem(
            kind=claims.ENTRY_KIND_SAVED_LOGIN,
            label=values["label"],
            origin=values["origin"],
            # One per line, as the person wrote them; the vault checks each.
            equivalent_origins=[
                line.strip() for line in values["equivalent_origins"].splitlines() if line.strip()
            ],
            fields={"username": values["username"], "password": values["password"]},
        )

    return await _save(request, asked, LOGIN, "login", login)


@router.post("/vault/cards")
async def add_card(request: Request, asked: PostedForm) -> Response:
    def card(values: dict[str, str]) -> claims.VaultItem:
        written = {"number": values["number"], "expiry": values["expiry"]}
        if values["holder_name"]:
            written["holder_name"] = values["holder_name"]
        return claims.VaultItem(kind=claims.ENTRY_KIND_CARD, label=values["label"], fields=written)

    return await _save(request, asked, CARD, "card", card)


@router.post("/vault/{item_id}/delete")
async def delete_item(item_id: str, asked: PostedForm) -> Response:
    # Someone else's item, or one deleted already: the service says NOT_FOUND (404).
    await asked.nod.vault.DeleteItem(claims.DeleteItemRequest(item_id=item_id))
    return RedirectResponse("/vault?note=deleted", status_code=303)
