"""What `make run` puts in place for the demo person once the services are
up: a saved login for the demo shop, a test card, and the demo app connected
as a webhook account. Safe to run again: items are updated in place (the
shop and app may have moved to other ports), never added twice."""

from nod.approvals.v1 import approvals_pb2 as approvals
from nod.approvals.v1 import approvals_pb2_grpc
from nod.claims.v1 import claims_pb2 as claims
from nod.claims.v1 import claims_pb2_grpc
from nodkit.client import call_metadata, open_channel
from nodkit.tls import Tls

PERSON = "ada"
SHOP_USERNAME = "ada@example.com"
SHOP_PASSWORD = "demo-password-1"
# Base32, 160 bits: the shop asks for a one-time code from it after the password.
SHOP_TOTP_SEED = "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP"
LOGIN_LABEL = "Demo shop"
CARD_LABEL = "Demo card"
CARD = {"number": "4242424242424242", "expiry": "12/30", "holder_name": "Ada Lovelace"}
APP_LABEL = "Demo app"
TIMEOUT_S = 10


async def seed(
    claims_addr: str,
    approvals_addr: str,
    token,
    person_id: str,
    shop_url: str,
    app_url: str,
    *,
    tls: Tls | None = None,
) -> None:
    """person_id: the demo person's id, which the services know them by."""
    meta = call_metadata(token, person_id)
    async with open_channel(claims_addr, tls=tls, peer="claims") as channel:
        vault = claims_pb2_grpc.VaultServiceStub(channel)
        await _put_one(
            vault,
            meta,
            claims.VaultItem(
                kind=claims.ENTRY_KIND_SAVED_LOGIN,
                label=LOGIN_LABEL,
                origin=shop_url,
                fields={"username": SHOP_USERNAME, "password": SHOP_PASSWORD},
            ),
        )
        await _put_one(
            vault,
            meta,
            claims.VaultItem(kind=claims.ENTRY_KIND_CARD, label=CARD_LABEL, fields=CARD),
        )
    async with open_channel(approvals_addr, tls=tls, peer="approvals") as channel:
        await _connect_one(approvals_pb2_grpc.ApprovalsServiceStub(channel), meta, app_url)


async def _put_one(vault, meta, item: claims.VaultItem) -> None:
    """The one item of its label, written in place; any older copy deleted."""
    listed = await vault.ListItems(
        claims.ListItemsRequest(kind=item.kind), metadata=meta, timeout=TIMEOUT_S
    )
    same = [i for i in listed.items if i.label == item.label]
    if same:
        item.id = same[0].id
    await vault.PutItem(claims.PutItemRequest(item=item), metadata=meta, timeout=TIMEOUT_S)
    for extra in same[1:]:
        await vault.DeleteItem(
            claims.DeleteItemRequest(item_id=extra.id), metadata=meta, timeout=TIMEOUT_S
        )


async def _connect_one(stub, meta, app_url: str) -> None:
    """The demo app connected once, at its current address, with the page
    where it lists what it received (nod's "look for me" reads it)."""
    hook = f"{app_url}/hooks/nod"
    settings = {"url": hook, "status_url": f"{app_url}/"}
    listed = await stub.ListAccounts(
        approvals.ListAccountsRequest(), metadata=meta, timeout=TIMEOUT_S
    )
    demo = [a for a in listed.accounts if a.label == APP_LABEL]
    keep = next((a for a in demo if dict(a.settings) == settings), None)
    for account in demo:
        if account is not keep:
            request = approvals.DisconnectAccountRequest(account_id=account.id)
            await stub.DisconnectAccount(request, metadata=meta, timeout=TIMEOUT_S)
    if keep is None:
        account = approvals.Account(app="webhook", label=APP_LABEL, settings=settings)
        await stub.ConnectAccount(
            approvals.ConnectAccountRequest(account=account), metadata=meta, timeout=TIMEOUT_S
        )
