"""Builders for the claims contract that several test suites share (the
claims, browser and end-to-end tests): saved items with canary values.
gRPC only; no service's code."""

import uuid

from nod.claims.v1 import claims_pb2 as pb
from nodtest.canaries import CANARY_CARD, CANARY_PASSWORD, register

__all__ = ["CANARY_CARD", "CANARY_PASSWORD", "ORIGIN", "op_id", "put_card", "put_login"]

ORIGIN = "https://shop.example"


def op_id() -> str:
    return f"op-{uuid.uuid4().hex}"


async def put_login(vault_stub, meta, *, origin=ORIGIN, password=CANARY_PASSWORD) -> pb.VaultItem:
    reply = await vault_stub.PutItem(
        pb.PutItemRequest(
            item=pb.VaultItem(
                kind=pb.ENTRY_KIND_SAVED_LOGIN,
                label="shop",
                origin=origin,
                fields={"username": "ada@example.com", "password": register(password, "password")},
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
