"""What the model may know of the person's things, read fresh for every
model request: saved items by label with masked fields, connected apps."""

from nod.approvals.v1 import approvals_pb2 as approvals
from nod.claims.v1 import claims_pb2 as claims
from nod_tasks.adapters.peers import Peers
from nod_tasks.domain.model import AppAccount, SavedCard, SavedLogin, TaskContext
from nod_tasks.domain.tasks import TaskRecord


async def task_context(peers: Peers, task: TaskRecord) -> TaskContext:
    items = await peers.claims.call(
        peers.vault_stub.ListItems, claims.ListItemsRequest(), task.owner
    )
    accounts = await peers.approvals.call(
        peers.approvals_stub.ListAccounts, approvals.ListAccountsRequest(), task.owner
    )
    logins = [
        SavedLogin(i.id, i.label, i.origin, i.fields.get("username", ""))
        for i in items.items
        if i.kind == claims.ENTRY_KIND_SAVED_LOGIN
    ]
    cards = [
        SavedCard(i.id, i.label, i.fields.get("number", ""), i.fields.get("expiry", ""))
        for i in items.items
        if i.kind == claims.ENTRY_KIND_CARD
    ]
    apps = [AppAccount(a.id, a.app, a.label) for a in accounts.accounts if a.connected]
    return TaskContext(task.id, task.text, logins, cards, apps)
