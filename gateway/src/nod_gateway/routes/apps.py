"""Connected apps: the person's webhook and email (SMTP) accounts; connect
one, disconnect one. Credentials go straight to ConnectAccount and only
their names come back. An address nod must not reach (loopback, private,
link-local such as cloud metadata) is refused by the approvals service; the
form comes back saying why, and nothing is connected."""

from urllib.parse import urlsplit

from fastapi import APIRouter, Request
from fastapi.responses import RedirectResponse, Response

from nod.approvals.v1 import approvals_pb2 as approvals
from nod_gateway.peers import Nod, ServiceCallFailed
from nod_gateway.routes.saved_forms import Field, Refusal, kept, read, refusal
from nod_gateway.web.render import page
from nod_gateway.web.sessions import PostedForm, SignedIn

router = APIRouter()

WEBHOOK = (
    Field("label", "Label", 200, required=False, service_name="account.label"),
    # A webhook URL often carries a secret in its path: not shown again.
    Field("url", "URL", 2048, refill=False, service_name="account.settings.url"),
    Field("token", "Token", 4096, required=False, secret=True,
          service_name="account.credentials.token"),
)  # fmt: skip
SMTP = (
    Field("label", "Label", 200, required=False, service_name="account.label"),
    Field("host", "Mail server", 253, service_name="account.settings.host"),
    Field("port", "Port", 5, service_name="account.settings.port"),
    Field("from", "From address", 254, service_name="account.settings.from"),
    Field("username", "Username", 1024, required=False,
          service_name="account.credentials.username"),
    Field("password", "Password", 1024, required=False, secret=True,
          service_name="account.credentials.password"),
)  # fmt: skip
APPS = {"webhook": "Webhook", "smtp": "Email (SMTP)"}
NOTES = {
    "connected": "Connected. nod still asks you before every action on it.",
    "disconnected": "Disconnected: its credentials are gone and nothing runs on it any more.",
}


def where_it_sends(account: approvals.Account) -> str:
    """The webhook's site without its path (which may hold a secret), or the
    mail server and sender."""
    if account.app == "webhook":
        parts = urlsplit(account.settings.get("url", ""))
        more = "/…" if parts.path.strip("/") or parts.query else ""
        return f"{parts.scheme}://{parts.netloc}{more}" if parts.netloc else ""
    settings = account.settings
    return f"{settings.get('host', '')}:{settings.get('port', '')}, from {settings.get('from', '')}"


async def _apps_page(request: Request, nod: Nod, status: int = 200, **values) -> Response:
    accounts = (await nod.approvals.ListAccounts(approvals.ListAccountsRequest())).accounts
    values.setdefault("failed", "")
    values.setdefault("kept", {})
    return page(
        request, "apps.html", status=status, accounts=accounts, apps=APPS,
        where_it_sends=where_it_sends, **values,
    )  # fmt: skip


@router.get("/apps")
async def apps_page(request: Request, asked: SignedIn, note: str = "") -> Response:
    return await _apps_page(request, asked.nod, note=NOTES.get(note, ""))


async def _connect(request: Request, asked, app: str, specs, account_for) -> Response:
    try:
        values = read(asked.form, specs)
        try:
            await asked.nod.approvals.ConnectAccount(
                approvals.ConnectAccountRequest(account=account_for(values))
            )
        except ServiceCallFailed as failure:
            raise refusal(failure, specs) from None
    except Refusal as refused:
        return await _apps_page(
            request, asked.nod, 400, failed=app, error=str(refused), kept=kept(asked.form, specs)
        )
    return RedirectResponse("/apps?note=connected", status_code=303)


@router.post("/apps/webhook")
async def connect_webhook(request: Request, asked: PostedForm) -> Response:
    def webhook(values: dict[str, str]) -> approvals.Account:
        credentials = {"token": values["token"]} if values["token"] else {}
        return approvals.Account(
            app="webhook", label=values["label"], settings={"url": values["url"]},
            credentials=credentials,
        )  # fmt: skip

    return await _connect(request, asked, "webhook", WEBHOOK, webhook)


@router.post("/apps/smtp")
async def connect_smtp(request: Request, asked: PostedForm) -> Response:
    def smtp(values: dict[str, str]) -> approvals.Account:
        # Both or neither: the service names the one that is missing.
        credentials = {name: values[name] for name in ("username", "password") if values[name]}
        settings = {name: values[name] for name in ("host", "port", "from")}
        return approvals.Account(
            app="smtp", label=values["label"], settings=settings, credentials=credentials
        )

    return await _connect(request, asked, "smtp", SMTP, smtp)


@router.post("/apps/{account_id}/disconnect")
async def disconnect(account_id: str, asked: PostedForm) -> Response:
    # Someone else's account: the service says NOT_FOUND (404).
    await asked.nod.approvals.DisconnectAccount(
        approvals.DisconnectAccountRequest(account_id=account_id)
    )
    return RedirectResponse("/apps?note=disconnected", status_code=303)
