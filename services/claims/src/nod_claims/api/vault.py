"""VaultService: proto <-> the vault use cases. Replies carry masked values only."""

from nod.claims.v1 import claims_pb2 as pb
from nod.claims.v1 import claims_pb2_grpc
from nod_claims.api.convert import KINDS, item_to_pb
from nod_claims.app.vault import Vault
from nod_claims.domain.vault import ItemInput
from nodkit.identity import current_user


class VaultServicer(claims_pb2_grpc.VaultServiceServicer):
    def __init__(self, vault: Vault) -> None:
        self._vault = vault

    async def PutItem(self, request, context) -> pb.PutItemResponse:
        item = request.item
        stored = await self._vault.put_item(
            current_user(),
            ItemInput(
                id=item.id or None,
                kind=KINDS.domain("item.kind", item.kind),
                label=item.label,
                origin=item.origin or None,
                fields=dict(item.fields),
                equivalent_origins=tuple(item.equivalent_origins),
            ),
            request.request_id,
        )
        return pb.PutItemResponse(item=item_to_pb(stored))

    async def ListItems(self, request, context) -> pb.ListItemsResponse:
        owner = current_user()
        items = await self._vault.list_items(owner, KINDS.optional("kind", request.kind))
        return pb.ListItemsResponse(items=[item_to_pb(i) for i in items])

    async def DeleteItem(self, request, context) -> pb.DeleteItemResponse:
        await self._vault.delete_item(current_user(), request.item_id)
        return pb.DeleteItemResponse()

    async def PutPrivateEntry(self, request, context) -> pb.PutPrivateEntryResponse:
        entry_id = await self._vault.put_private_entry(
            current_user(),
            request.task_id,
            KINDS.domain("kind", request.kind),
            dict(request.fields),
            request.request_id,
            origin=request.origin,
            frame_origin=request.frame_origin,
        )
        return pb.PutPrivateEntryResponse(id=entry_id)

    async def DiscardPrivateEntries(self, request, context) -> pb.DiscardPrivateEntriesResponse:
        count = await self._vault.discard_private_entries(current_user(), request.task_id)
        return pb.DiscardPrivateEntriesResponse(discarded=count)
