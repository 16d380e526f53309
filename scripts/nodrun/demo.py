"""What `make run` puts in place for the demo person once the services are
up: a saved login for the demo shop and the demo app connected as a webhook
account. Safe to run again: it adds only what is missing."""

from nod.approvals.v1 import approvals_pb2 as approvals
from nod.approvals.v1 import approvals_pb2_grpc
from nod.claims.v1 import claims_pb2 as claims
from nod.claims.v1 import claims_pb2_grpc
from nodkit.client import call_metadata, open_channel

PERSON = "ada"
SHOP_USERNAME = "ada@example.com"
SHOP_PASSWORD = "demo-password-1"
# Base32: the shop asks for a one-time code from this seed after the password.
SHOP_TOTP_SEED = "JBSWY3DPEHPK3PXP"


async def seed(claims_addr: str, approvals_addr: str, token, shop_url: str, app_url: str) -> None:
    meta = call_metadata(token, PERSON)
    async with open_channel(claims_addr) as channel:
        vault = claims_pb2_grpc.VaultServiceStub(channel)
        items = (await vault.ListItems(claims.ListItemsRequest(), metadata=meta, timeout=10)).items
        if not any(item.origin == shop_url for item in items):
            login = claims.VaultItem(
                kind=claims.ENTRY_KIND_SAVED_LOGIN,
                label="Demo shop",
                origin=shop_url,
                fields={
                    "username": SHOP_USERNAME,
                    "password": SHOP_PASSWORD,
                    "totp_seed": SHOP_TOTP_SEED,
                },
            )
            await vault.PutItem(claims.PutItemRequest(item=login), metadata=meta, timeout=10)
    async with open_channel(approvals_addr) as channel:
        stub = approvals_pb2_grpc.ApprovalsServiceStub(channel)
        accounts = await stub.ListAccounts(
            approvals.ListAccountsRequest(), metadata=meta, timeout=10
        )
        hook = f"{app_url}/hooks/nod"
        if not any(a.settings.get("url") == hook and a.connected for a in accounts.accounts):
            account = approvals.Account(app="webhook", label="Demo app", settings={"url": hook})
            await stub.ConnectAccount(
                approvals.ConnectAccountRequest(account=account), metadata=meta, timeout=10
            )
