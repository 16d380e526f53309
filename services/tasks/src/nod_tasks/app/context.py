"""What the model may know of the person's things, read for every model
request: saved items by label with masked fields, connected apps."""

import asyncio

from nod_tasks.adapters.peers import Peers
from nod_tasks.domain.model import TaskContext
from nod_tasks.domain.tasks import TaskRecord


async def task_context(peers: Peers, task: TaskRecord) -> TaskContext:
    (logins, cards), accounts = await asyncio.gather(
        peers.claims.saved_items(task.owner), peers.approvals.connected_accounts(task.owner)
    )
    return TaskContext(task.id, task.text, logins, cards, accounts)
