"""Email nudges: when nod waits for a person who added an address, and no
task page of theirs has been seen open for NOD_GATEWAY_NUDGE_DELAY_S, one
email says so, with a link to the task's page.

Every gateway replica runs the loop. A wait is emailed about once however
many run: each replica first claims the (task, wait) with an INSERT ... ON
CONFLICT DO NOTHING, and only the one whose insert made the row sends
(people/store.py claim_nudge). The claim reads the person's absence in the
same statement, so a page opened since the round began stops it.

What the email says is fixed words for the kind of wait, never the wait's
prompt (a question's words are the model's) nor anything the person typed.
Its link opens the task page only: deciding there stays a POST with the
session's CSRF token, so a mail scanner that follows the link decides
nothing. A send that fails is logged and recorded as failed, and not tried
again: the claim stays, and a retry could arrive as a second email after a
send that did get through."""

import datetime as dt
import email.message
import email.utils
from collections.abc import Awaitable
from dataclasses import dataclass

import aiosmtplib
from sqlalchemy.ext.asyncio import AsyncEngine

from nod.tasks.v1 import tasks_pb2 as tasks
from nod_gateway.peers import Peers, ServiceCallFailed
from nod_gateway.people import store
from nod_gateway.settings import GatewaySettings
from nod_gateway.web.words import NUDGE_SUBJECT, what_nod_waits_for
from nodkit.background import every
from nodkit.logging import get_logger

log = get_logger("nod_gateway.nudges")
PAGE_SIZE = 100
# The most waiting tasks one person's round reads (pages of PAGE_SIZE).
MAX_PAGES = 10


def message_for(
    settings: GatewaySettings, address: str, task: tasks.Task
) -> email.message.EmailMessage:
    message = email.message.EmailMessage()
    message["Subject"] = NUDGE_SUBJECT
    message["From"] = settings.smtp_from
    message["To"] = address
    message["Date"] = email.utils.formatdate(localtime=False)
    message["Message-ID"] = email.utils.make_msgid(domain=settings.smtp_from.rpartition("@")[2])
    lines = [what_nod_waits_for(task.wait), ""]
    if settings.public_url:
        lines += ["Open the task in nod to see it and answer there:", task_url(settings, task.id)]
    else:
        lines += ["Open nod and the task waiting for you (the gateway has no public address"
                  " set, so this email has no link)."]  # fmt: skip
    lines += [
        "",
        "nod never asks for a password, code or yes by email: answer only on nod's own page.",
        "You get this because you added this address in nod, under You.",
    ]
    message.set_content("\n".join(lines) + "\n")
    return message


def task_url(settings: GatewaySettings, task_id: str) -> str:
    return f"{settings.public_url}/tasks/{task_id}"


@dataclass
class Nudger:
    settings: GatewaySettings
    engine: AsyncEngine
    peers: Peers

    async def send(self, message: email.message.EmailMessage) -> None:
        s = self.settings
        password = s.smtp_password.get_secret_value() if s.smtp_password else None
        await aiosmtplib.send(
            message,
            hostname=s.smtp_host,
            port=s.smtp_port,
            username=s.smtp_username or None,
            password=password,
            use_tls=s.smtp_security == "tls",
            start_tls=s.smtp_security == "starttls",
            timeout=s.smtp_timeout_s,
        )

    async def waiting(self, person: str) -> list[tasks.Task]:
        nod = self.peers.for_person(person)
        found: list[tasks.Task] = []
        token = ""
        for _ in range(MAX_PAGES):
            reply = await nod.tasks.ListTasks(
                tasks.ListTasksRequest(
                    state=tasks.TASK_STATE_WAITING, page_size=PAGE_SIZE, page_token=token
                )
            )
            found += reply.tasks
            token = reply.next_page_token
            if not token:
                break
        return found

    async def once(self) -> int:
        """One round; how many emails it sent."""
        delay_s = self.settings.nudge_delay_s
        sent = 0
        for person, address in await store.away_with_address(self.engine, delay_s):
            try:
                waiting = await self.waiting(person)
            except ServiceCallFailed as failure:
                log.warning("gateway.nudge_tasks_unread", code=failure.error.code.name)
                continue
            now = dt.datetime.now(dt.UTC)
            for task in waiting:
                if task.state != tasks.TASK_STATE_WAITING or not task.wait.id:
                    continue
                since = task.updated_at.ToDatetime(tzinfo=dt.UTC)
                if (now - since).total_seconds() < delay_s:
                    continue
                sent += await self.nudge(person, address, task)
        return sent

    async def nudge(self, person: str, address: str, task: tasks.Task) -> int:
        s = self.settings
        claimed = await store.claim_nudge(
            self.engine, person, task.id, task.wait.id, s.nudge_delay_s, s.instance_id
        )
        if not claimed:
            return 0
        try:
            await self.send(message_for(s, address, task))
        except (TimeoutError, aiosmtplib.SMTPException, OSError) as error:
            # Not tried again (see the module's words): said in the log.
            log.error(
                "gateway.nudge_failed", task_id=task.id, wait_id=task.wait.id,
                error=type(error).__name__,
            )  # fmt: skip
            await store.nudge_ended(self.engine, task.id, task.wait.id, "failed")
            return 0
        await store.nudge_ended(self.engine, task.id, task.wait.id, "sent")
        log.info("gateway.nudge_sent", task_id=task.id, wait_id=task.wait.id)
        return 1


def nudge_forever(settings: GatewaySettings, engine: AsyncEngine, peers: Peers) -> Awaitable[None]:
    """A round every NOD_GATEWAY_NUDGE_CHECK_S until cancelled; a failed
    round (the database away) is logged and the next one tries again."""
    nudger = Nudger(settings, engine, peers)
    return every(settings.nudge_check_s, nudger.once, event="gateway.nudge")
