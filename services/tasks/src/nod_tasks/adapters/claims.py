"""The claims service as the tasks service calls it: the person's saved
items (masked) and private entries (the vault), and the claims of its
entries. Typed values in, typed values out."""

from pydantic import SecretStr

from nod.claims.v1 import claims_pb2 as pb
from nod.claims.v1 import claims_pb2_grpc
from nod_tasks.adapters.enums import to_domain, to_proto
from nod_tasks.domain.checks import Check
from nod_tasks.domain.model import SavedCard, SavedLogin
from nod_tasks.domain.outside import Claim, ClaimState, Entry
from nodkit.peers import Peer
from nodkit.tls import Tls

SERVICES = [pb.DESCRIPTOR.services_by_name[name] for name in ("ClaimsService", "VaultService")]


def claim_of(message: pb.Claim) -> Claim:
    state = to_domain(pb.ClaimState, ClaimState, message.state, ClaimState.UNKNOWN)
    return Claim(message.id, state, message.reason)


class ClaimsPeer:
    def __init__(
        self, address: str, token: SecretStr | None, timeout_s: float, *, tls: Tls | None = None
    ) -> None:
        self._peer = Peer(address, token, timeout_s, SERVICES, name="claims", tls=tls)
        self._claims = self._peer.stub(claims_pb2_grpc.ClaimsServiceStub)
        self._vault = self._peer.stub(claims_pb2_grpc.VaultServiceStub)

    async def saved_items(self, owner: str) -> tuple[list[SavedLogin], list[SavedCard]]:
        """The person's saved logins and cards, masked."""
        reply = await self._peer.call(self._vault.ListItems, pb.ListItemsRequest(), owner)
        logins = [
            SavedLogin(
                i.id, i.label, i.origin, i.fields.get("username", ""), "totp_seed" in i.fields
            )
            for i in reply.items
            if i.kind == pb.ENTRY_KIND_SAVED_LOGIN
        ]
        cards = [
            SavedCard(i.id, i.label, i.fields.get("number", ""), i.fields.get("expiry", ""))
            for i in reply.items
            if i.kind == pb.ENTRY_KIND_CARD
        ]
        return logins, cards

    async def saved_login_ids(self, owner: str) -> set[str]:
        request = pb.ListItemsRequest(kind=pb.ENTRY_KIND_SAVED_LOGIN)
        reply = await self._peer.call(self._vault.ListItems, request, owner)
        return {item.id for item in reply.items}

    async def discard_private_entries(self, owner: str, task_id: str) -> None:
        request = pb.DiscardPrivateEntriesRequest(task_id=task_id)
        await self._peer.call(self._vault.DiscardPrivateEntries, request, owner)

    async def find_claim(self, owner: str, task_id: str, entry: Entry) -> Claim | None:
        """The claim of an entry's operation, if it was ever claimed (a read)."""
        request = pb.FindClaimRequest(
            operation_id=entry.operation_id,
            kind=to_proto(pb.EntryKind, entry.kind),
            item_id=entry.item_id,
            task_id=task_id,
            companion_entry_id=entry.companion_entry_id,
        )
        reply = await self._peer.call(self._claims.FindClaim, request, owner)
        return claim_of(reply.claim) if reply.found else None

    async def record_check(self, owner: str, claim_id: str, check: Check) -> None:
        request = pb.RecordCheckRequest(claim_id=claim_id, check=to_proto(pb.CheckResult, check))
        await self._peer.call(self._claims.RecordCheck, request, owner)

    async def close(self) -> None:
        await self._peer.close()
