"""The other nod services, as the tasks service calls them: each on
nodkit's Peer (its own token, the person in metadata, a deadline, reads
retried as the contracts say, nothing that changes state ever resent)."""

from dataclasses import dataclass

from nod_tasks.adapters.approvals import ApprovalsPeer
from nod_tasks.adapters.browser import BrowserPeer
from nod_tasks.adapters.claims import ClaimsPeer
from nod_tasks.adapters.payments import PaymentsPeer


@dataclass
class Peers:
    claims: ClaimsPeer
    approvals: ApprovalsPeer
    payments: PaymentsPeer
    browser: BrowserPeer

    async def close(self) -> None:
        for peer in (self.claims, self.approvals, self.payments, self.browser):
            await peer.close()
