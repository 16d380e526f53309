"""The vault shows masked metadata only; items are replaced and deleted by
their owner; another person's ids answer NOT_FOUND."""

import grpc
import pytest

from nod.claims.v1 import claims_pb2 as pb
from nodkit.client import call_metadata
from nodtest.claims import CANARY_CARD, CANARY_PASSWORD, put_card, put_login
from nodtest.rpc import expect_error

from .support import claim_request, live_holder

NOT_FOUND = grpc.StatusCode.NOT_FOUND
SOME_UUID = "7d1f4f5e-5d7c-4a4e-9b8e-3c2b1a0f9e8d"


async def test_listing_shows_masked_metadata_only(vault_stub, as_person):
    login = await put_login(vault_stub, as_person)
    card = await put_card(vault_stub, as_person)
    assert dict(login.fields) == {"username": "a•••@example.com", "password": "••••••••"}
    assert dict(card.fields) == {
        "number": "•••• 1111",
        "expiry": "12/29",
        "holder_name": "Ada Lovelace",
    }
    listed = (await vault_stub.ListItems(pb.ListItemsRequest(), metadata=as_person)).items
    assert [i.id for i in listed] == [login.id, card.id]
    cards = (
        await vault_stub.ListItems(pb.ListItemsRequest(kind=pb.ENTRY_KIND_CARD), metadata=as_person)
    ).items
    assert [i.id for i in cards] == [card.id]
    text = str(listed)
    assert CANARY_PASSWORD not in text and CANARY_CARD not in text
    assert card.label == "visa" and login.origin == "https://shop.example"


async def test_replacing_a_login_changes_what_a_claim_releases(claims_stub, vault_stub, as_person):
    login = await put_login(vault_stub, as_person)
    replaced = (
        await vault_stub.PutItem(
            pb.PutItemRequest(
                item=pb.VaultItem(
                    id=login.id,
                    kind=pb.ENTRY_KIND_SAVED_LOGIN,
                    label="shop, new password",
                    origin="https://shop.example",
                    fields={"username": "ada@example.com", "password": "the-new-one"},
                )
            ),
            metadata=as_person,
        )
    ).item
    assert replaced.id == login.id and replaced.label == "shop, new password"
    holder = await live_holder(claims_stub, as_person)
    reply = await claims_stub.Claim(claim_request(replaced, holder), metadata=as_person)
    assert reply.secret_fields["password"] == "the-new-one"


async def test_a_saved_item_can_not_change_kind(vault_stub, as_person):
    login = await put_login(vault_stub, as_person)
    await expect_error(
        vault_stub.PutItem(
            pb.PutItemRequest(
                item=pb.VaultItem(
                    id=login.id,
                    kind=pb.ENTRY_KIND_CARD,
                    fields={"number": CANARY_CARD, "expiry": "01/30"},
                )
            ),
            metadata=as_person,
        ),
        grpc.StatusCode.INVALID_ARGUMENT,
        field="item.kind",
    )


async def test_a_card_number_as_the_name_on_a_card_is_refused(vault_stub, as_person):
    # The name on a card is listed as typed: a card number put there by
    # mistake would be shown in the clear wherever the card is.
    fields = {"number": CANARY_CARD, "expiry": "01/30", "holder_name": "4242 4242 4242 4242"}
    error = await expect_error(
        vault_stub.PutItem(
            pb.PutItemRequest(item=pb.VaultItem(kind=pb.ENTRY_KIND_CARD, fields=fields)),
            metadata=as_person,
        ),
        grpc.StatusCode.INVALID_ARGUMENT,
        field="item.fields.holder_name",
    )
    assert "4242" not in error.message
    listed = (await vault_stub.ListItems(pb.ListItemsRequest(), metadata=as_person)).items
    assert not listed


async def test_a_deleted_item_is_gone_but_its_claims_stay(claims_stub, vault_stub, as_person):
    login = await put_login(vault_stub, as_person)
    holder = await live_holder(claims_stub, as_person)
    claim = (await claims_stub.Claim(claim_request(login, holder), metadata=as_person)).claim
    await vault_stub.DeleteItem(pb.DeleteItemRequest(item_id=login.id), metadata=as_person)
    assert (await vault_stub.ListItems(pb.ListItemsRequest(), metadata=as_person)).items == []
    await expect_error(
        vault_stub.DeleteItem(pb.DeleteItemRequest(item_id=login.id), metadata=as_person),
        NOT_FOUND,
    )
    await expect_error(
        claims_stub.Claim(claim_request(login, holder), metadata=as_person),
        NOT_FOUND,
        reason="ITEM_NOT_FOUND",
    )
    got = await claims_stub.GetClaim(pb.GetClaimRequest(claim_id=claim.id), metadata=as_person)
    assert got.claim.state == pb.CLAIM_STATE_RUNNING


@pytest.fixture
def stranger(service_token):
    return call_metadata(service_token, "person-stranger")


async def test_another_persons_objects_answer_not_found(
    claims_stub, vault_stub, as_person, stranger
):
    login = await put_login(vault_stub, as_person)
    holder = await live_holder(claims_stub, as_person)
    claim = (await claims_stub.Claim(claim_request(login, holder), metadata=as_person)).claim
    calls = [
        claims_stub.GetClaim(pb.GetClaimRequest(claim_id=claim.id), metadata=stranger),
        claims_stub.MarkSubmitted(
            pb.MarkSubmittedRequest(claim_id=claim.id, holder=holder), metadata=stranger
        ),
        claims_stub.MarkUncertain(
            pb.MarkUncertainRequest(claim_id=claim.id, holder=holder), metadata=stranger
        ),
        claims_stub.RecordCheck(
            pb.RecordCheckRequest(claim_id=claim.id, check=pb.CHECK_RESULT_WORKED),
            metadata=stranger,
        ),
        claims_stub.ListClaimEvents(
            pb.ListClaimEventsRequest(claim_id=claim.id), metadata=stranger
        ),
        claims_stub.Claim(claim_request(login, holder), metadata=stranger),
        vault_stub.DeleteItem(pb.DeleteItemRequest(item_id=login.id), metadata=stranger),
        vault_stub.PutItem(
            pb.PutItemRequest(
                item=pb.VaultItem(
                    id=login.id,
                    kind=pb.ENTRY_KIND_SAVED_LOGIN,
                    origin="https://shop.example",
                    fields={"username": "x", "password": "y"},
                )
            ),
            metadata=stranger,
        ),
    ]
    for call in calls:
        await expect_error(call, NOT_FOUND)
    for call in [
        claims_stub.GetClaim(pb.GetClaimRequest(claim_id=SOME_UUID), metadata=as_person),
        vault_stub.DeleteItem(pb.DeleteItemRequest(item_id=SOME_UUID), metadata=as_person),
    ]:
        await expect_error(call, NOT_FOUND)
    assert (await vault_stub.ListItems(pb.ListItemsRequest(), metadata=stranger)).items == []
    listed = await claims_stub.ListClaims(pb.ListClaimsRequest(), metadata=stranger)
    assert claim.id not in {c.id for c in listed.claims}
    # The owner's claim is untouched by all of that.
    got = await claims_stub.GetClaim(pb.GetClaimRequest(claim_id=claim.id), metadata=as_person)
    assert got.claim.state == pb.CLAIM_STATE_RUNNING


async def test_claims_are_listed_by_task_and_state_in_pages(claims_stub, vault_stub, as_person):
    login = await put_login(vault_stub, as_person)
    holder = await live_holder(claims_stub, as_person)
    made = []
    for i in range(7):
        task = "task-a" if i % 2 == 0 else "task-b"
        reply = await claims_stub.Claim(
            claim_request(login, holder, task_id=task), metadata=as_person
        )
        made.append(reply.claim)
    await claims_stub.MarkSubmitted(
        pb.MarkSubmittedRequest(claim_id=made[0].id, holder=holder), metadata=as_person
    )

    seen, token = [], ""
    while True:
        page = await claims_stub.ListClaims(
            pb.ListClaimsRequest(task_id="task-a", page_size=2, page_token=token),
            metadata=as_person,
        )
        assert len(page.claims) <= 2
        seen += [c.id for c in page.claims]
        token = page.next_page_token
        if not token:
            break
    assert seen == [c.id for c in made if c.task_id == "task-a"]

    submitted = await claims_stub.ListClaims(
        pb.ListClaimsRequest(state=pb.CLAIM_STATE_SUBMITTED), metadata=as_person
    )
    assert [c.id for c in submitted.claims] == [made[0].id]
    running_b = await claims_stub.ListClaims(
        pb.ListClaimsRequest(task_id="task-b", state=pb.CLAIM_STATE_RUNNING), metadata=as_person
    )
    assert [c.id for c in running_b.claims] == [c.id for c in made if c.task_id == "task-b"]
