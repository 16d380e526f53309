"""A canary password and card number leave the service only in the one
granted claim: not in logs, errors, other replies, or any database column
outside the ciphertext."""

import asyncio

import grpc

from nod.claims.v1 import claims_pb2 as pb
from nodtest.claims import CANARY_CARD, CANARY_PASSWORD, bind_card, put_card, put_login

from .support import claim_request, live_holder

CANARIES = (CANARY_PASSWORD, CANARY_CARD, "4111 1111 1111 1111")


def leaks(text: str) -> list[str]:
    return [c for c in CANARIES if c in text]


async def test_canaries_appear_only_in_the_grant(
    claims_stub, vault_stub, as_person, person, db, log_tee
):
    log_start = len(log_tee.lines)
    replies = []
    login = await put_login(vault_stub, as_person)
    card = await put_card(vault_stub, as_person)
    replies += [login, card]
    replies.append(await vault_stub.ListItems(pb.ListItemsRequest(), metadata=as_person))
    holder = await live_holder(claims_stub, as_person)

    grants = []
    for item, origin in ((login, "https://shop.example"), (card, "https://pay.example")):
        request = claim_request(item, holder, origin=origin)
        if item.kind == pb.ENTRY_KIND_CARD:
            await bind_card(
                claims_stub,
                as_person,
                operation_id=request.operation_id,
                item_id=item.id,
                merchant_origin=origin,
            )
        grant = await claims_stub.Claim(request, metadata=as_person)
        grants.append(grant)
        replies.append(await claims_stub.Claim(request, metadata=as_person))  # the resend
        replies.append(
            await claims_stub.MarkSubmitted(
                pb.MarkSubmittedRequest(claim_id=grant.claim.id, holder=holder), metadata=as_person
            )
        )
        replies.append(
            await claims_stub.GetClaim(
                pb.GetClaimRequest(claim_id=grant.claim.id), metadata=as_person
            )
        )
    replies.append(await claims_stub.ListClaims(pb.ListClaimsRequest(), metadata=as_person))
    replies.append(
        await claims_stub.RenewHolder(pb.RenewHolderRequest(holder=holder), metadata=as_person)
    )

    # Errors, including one that quotes what was sent.
    errors = []
    bad_requests = [
        vault_stub.PutItem(
            pb.PutItemRequest(
                item=pb.VaultItem(
                    kind=pb.ENTRY_KIND_CARD,
                    fields={
                        "number": CANARY_CARD[:-1] + "2",
                        "expiry": "12/29",
                        "cvc": CANARY_PASSWORD,
                    },
                )
            ),
            metadata=as_person,
        ),
        vault_stub.PutItem(
            pb.PutItemRequest(
                item=pb.VaultItem(
                    kind=pb.ENTRY_KIND_SAVED_LOGIN,
                    origin=CANARY_PASSWORD,
                    fields={"username": "u", "password": CANARY_PASSWORD},
                )
            ),
            metadata=as_person,
        ),
        claims_stub.Claim(
            claim_request(login, holder, operation_id=CANARY_PASSWORD + "\x07"), metadata=as_person
        ),
    ]
    for call in bad_requests:
        try:
            await call
        except grpc.aio.AioRpcError as error:
            errors.append(f"{error.details()} {error.trailing_metadata()}")

    assert grants[0].secret_fields["password"] == CANARY_PASSWORD
    assert grants[1].secret_fields["number"] == CANARY_CARD
    assert len(errors) == len(bad_requests)
    assert leaks(" ".join(errors)) == []
    assert leaks(" ".join(str(r) for r in replies)) == []
    # The call's log line is written once its answer has left: wait for it
    # (bounded), then look at every line of the test for a canary.
    for _ in range(100):
        if any("ClaimsService/Claim" in line for line in log_tee.lines[log_start:]):
            break
        await asyncio.sleep(0.02)
    assert any("ClaimsService/Claim" in line for line in log_tee.lines[log_start:])
    assert leaks("\n".join(log_tee.lines[log_start:])) == []

    dump = await (
        await db.execute(
            """
            SELECT string_agg(t::text, ' ') FROM (
              SELECT to_jsonb(c) FROM claims.claims c WHERE owner = %(p)s
              UNION ALL SELECT to_jsonb(e) FROM claims.claim_events e
                JOIN claims.claims c ON c.id = e.claim_id WHERE c.owner = %(p)s
              UNION ALL SELECT to_jsonb(v) FROM claims.vault_items v WHERE owner = %(p)s
              UNION ALL SELECT to_jsonb(h) FROM claims.holders h WHERE holder = %(h)s
            ) AS t(t)
            """,
            {"p": person, "h": holder},
        )
    ).fetchone()
    assert leaks(dump[0]) == []
    # The values are there, but only sealed.
    sealed = await (
        await db.execute("SELECT sealed_fields FROM claims.vault_items WHERE id = %s", (card.id,))
    ).fetchone()
    assert set(sealed[0]) == {"number", "expiry", "holder_name"}
    assert all(token.startswith("k") and ":" in token for token in sealed[0].values())
