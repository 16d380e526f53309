"""Builders for the claims tests: saved items, live holders, claim requests."""

import uuid

from nod.claims.v1 import claims_pb2 as pb

ORIGIN = "https://shop.example"
CANARY_PASSWORD = "canary-pw-7Q4zX9!"
CANARY_CARD = "4111111111111111"


def op_id() -> str:
    return f"op-{uuid.uuid4().hex}"


async def put_login(vault_stub, meta, *, origin=ORIGIN, password=CANARY_PASSWORD) -> pb.VaultItem:
    reply = await vault_stub.PutItem(
        pb.PutItemRequest(
            item=pb.VaultItem(
                kind=pb.ENTRY_KIND_SAVED_LOGIN,
                label="shop",
                origin=origin,
                fields={"username": "ada@example.com", "password": password},
            )
        ),
        metadata=meta,
    )
    return reply.item


async def put_card(vault_stub, meta, *, number=CANARY_CARD) -> pb.VaultItem:
    reply = await vault_stub.PutItem(
        pb.PutItemRequest(
            item=pb.VaultItem(
                kind=pb.ENTRY_KIND_CARD,
                label="visa",
                fields={"number": number, "expiry": "12/29", "holder_name": "Ada Lovelace"},
            )
        ),
        metadata=meta,
    )
    return reply.item


async def live_holder(claims_stub, meta) -> str:
    holder = f"runner-{uuid.uuid4().hex[:8]}"
    await claims_stub.RenewHolder(pb.RenewHolderRequest(holder=holder), metadata=meta)
    return holder


def claim_request(item, holder, *, operation_id=None, task_id="task-1", origin=ORIGIN, kind=None):
    return pb.ClaimRequest(
        operation_id=operation_id or op_id(),
        kind=kind or item.kind,
        item_id=item.id,
        origin=origin,
        task_id=task_id,
        holder=holder,
    )
