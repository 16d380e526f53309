"""Builders for the claims contract that several test suites share (the
claims, browser and end-to-end tests): saved items with canary values.
gRPC only; no service's code."""

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
