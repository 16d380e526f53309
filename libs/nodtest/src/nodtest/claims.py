"""Builders for the claims contract that several test suites share (the
claims, browser and end-to-end tests): saved items with canary values.
gRPC only; no service's code."""

import uuid

from nod.claims.v1 import claims_pb2 as pb
from nodtest.canaries import CANARY_CARD, CANARY_PASSWORD, register

__all__ = [
    "CANARY_CARD",
    "CANARY_PASSWORD",
    "ORIGIN",
    "bind_card",
    "op_id",
    "put_card",
    "put_entry",
    "put_login",
]

ORIGIN = "https://shop.example"


def op_id() -> str:
    return f"op-{uuid.uuid4().hex}"


async def put_login(
    vault_stub, meta, *, origin=ORIGIN, password=CANARY_PASSWORD, equivalent_origins=()
) -> pb.VaultItem:
    reply = await vault_stub.PutItem(
        pb.PutItemRequest(
            item=pb.VaultItem(
                kind=pb.ENTRY_KIND_SAVED_LOGIN,
                label="shop",
                origin=origin,
                equivalent_origins=equivalent_origins,
                fields={"username": "ada@example.com", "password": register(password, "password")},
            )
        ),
        metadata=meta,
    )
    return reply.item


async def put_entry(
    vault_stub, meta, kind, fields, *, task_id="task-1", origin=ORIGIN, frame_origin=""
) -> str:
    """A value the person typed in a private form asked for on `origin` (a
    security code takes none: it goes with its card)."""
    if kind == pb.ENTRY_KIND_SECURITY_CODE:
        origin = frame_origin = ""
    request = pb.PutPrivateEntryRequest(
        task_id=task_id, kind=kind, fields=fields, origin=origin, frame_origin=frame_origin
    )
    return (await vault_stub.PutPrivateEntry(request, metadata=meta)).id


async def bind_card(
    claims_stub,
    meta,
    *,
    operation_id: str,
    item_id: str,
    task_id: str = "task-1",
    merchant_origin: str = ORIGIN,
    hosted_payment_origins=(),
) -> pb.CardBinding:
    """What the payments service does when a card entry starts (the caller
    presents the one service token that may call anything)."""
    request = pb.BindCardEntryRequest(
        operation_id=operation_id,
        item_id=item_id,
        task_id=task_id,
        merchant_origin=merchant_origin,
        hosted_payment_origins=hosted_payment_origins,
    )
    return (await claims_stub.BindCardEntry(request, metadata=meta)).binding


async def put_card(vault_stub, meta, *, number=CANARY_CARD) -> pb.VaultItem:
    reply = await vault_stub.PutItem(
        pb.PutItemRequest(
            item=pb.VaultItem(
                kind=pb.ENTRY_KIND_CARD,
                label="visa",
                fields={
                    "number": register(number, "card number"),
                    "expiry": "12/29",
                    "holder_name": "Ada Lovelace",
                },
            )
        ),
        metadata=meta,
    )
    return reply.item
