"""nodctl people: who may sign in to the web page, and their sessions, in
the gateway's people store (its own database schema). Passwords are read
with getpass or from stdin, never from the command line (where `ps` and
shell history would keep them), and are stored as the gateway stores them
(argon2id). Sessions are named by the first digits of their token's
SHA-256, never by a token."""

import asyncio
import getpass
import sys
from collections.abc import Awaitable, Callable
from dataclasses import asdict
from typing import Any

from nod.approvals.v1 import approvals_pb2 as approvals
from nod.claims.v1 import claims_pb2 as claims
from nod.tasks.v1 import tasks_pb2 as tasks
from nod_gateway.people import passwords, store
from nodctl.output import Failed, emit, emit_json, say
from nodctl.parts import Parts

SESSION_COLUMNS = ("id", "created_at", "last_seen_at", "expires_at")
PEOPLE_COLUMNS = ("name", "id", "created_at")
# After Stop, each task's end reaches the other services within moments;
# its words are erased once it has. Waited for this long, every half second.
ENDS_TOLD_WITHIN_S = 30.0


def read_password(from_stdin: bool) -> str:
    if from_stdin:
        password = sys.stdin.readline().rstrip("\r\n")
    else:
        if not sys.stdin.isatty():
            raise Failed("no terminal to ask for the password on: use --password-stdin")
        password = getpass.getpass("New password: ")
        if getpass.getpass("Again: ") != password:
            raise Failed("the two passwords differ; nothing was changed")
    if not passwords.MIN_LENGTH <= len(password) <= passwords.MAX_LENGTH:
        raise Failed(
            f"the password must be {passwords.MIN_LENGTH} to {passwords.MAX_LENGTH} characters;"
            " nothing was changed"
        )
    return password


async def _hash(password: str) -> str:
    return await asyncio.to_thread(passwords.hash_password, password)


async def _must_exist(parts: Parts, name: str) -> None:
    await parts.person(name)


async def listing(parts: Parts, *, as_json: bool) -> int:
    people = await store.list_people(parts.engine)
    emit([asdict(p) for p in people], PEOPLE_COLUMNS, as_json=as_json, empty="Nobody yet.")
    return 0


async def add(parts: Parts, name: str, password: str) -> int:
    if not name or len(name) > 128 or not name.isprintable() or name != name.strip():
        raise Failed("name: 1 to 128 printable characters, no spaces around them")
    if not await store.add_person(parts.engine, name, await _hash(password), replace=False):
        raise Failed(f"{name!r} already exists: nothing was changed (reset-password sets theirs)")
    say(f"Added {name}: they can sign in now.")
    return 0


async def reset_password(parts: Parts, name: str, password: str) -> int:
    await _must_exist(parts, name)
    if not await store.set_password(parts.engine, name, await _hash(password)):
        raise Failed(f"there is no person named {name!r}")
    say(f"Set {name}'s password; their sessions were ended, so they sign in again with it.")
    return 0


async def sessions(parts: Parts, name: str, *, as_json: bool) -> int:
    await _must_exist(parts, name)
    found = await store.sessions_of(parts.engine, name)
    emit(
        [asdict(s) for s in found],
        SESSION_COLUMNS,
        as_json=as_json,
        empty=f"{name} has no open session.",
    )
    return 0


async def revoke(parts: Parts, name: str, session_id: str | None) -> int:
    await _must_exist(parts, name)
    ended = await store.end_sessions(parts.engine, name, session_id)
    if session_id is not None and ended == 0:
        raise Failed(f"{name} has no session {session_id!r} (see: nodctl people sessions {name})")
    say(f"Ended {ended} of {name}'s sessions.")
    return 0


async def remove(parts: Parts, name: str, *, as_json: bool) -> int:
    """Their sessions end first (nothing more can be started or said), then
    their tasks stop, the pictures of their tasks' pages and their tasks'
    words are erased, their saved items go, their apps are disconnected
    (the app's credentials erased) and their app actions' words erased,
    then the person. A service that fails (or records not over within
    ENDS_TOLD_WITHIN_S) stops it there, with the person kept, so running it
    again finishes the job."""
    person = await parts.person(name)
    done: dict[str, object] = {"person": name}
    done["sessions_ended"] = await store.end_sessions(parts.engine, name)
    nod = parts.as_person(person)
    stopped = await nod.tasks.Stop(tasks.StopRequest())
    done["tasks_stopped"] = [task.id for task in stopped.tasks]
    # The pictures of the pages their tasks saw: erased after the Stop, so
    # no step of theirs takes another.
    erased = await nod.tasks.DeleteStepScreenshots(tasks.DeleteStepScreenshotsRequest())
    done["step_pictures_erased"] = erased.deleted
    done["tasks_words_erased"] = await _erase_when_over(
        lambda: nod.tasks.EraseTaskWords(tasks.EraseTaskWordsRequest()), "still_going", "tasks"
    )
    items = (await nod.vault.ListItems(claims.ListItemsRequest())).items
    deleted = []
    for item in items:
        await nod.vault.DeleteItem(claims.DeleteItemRequest(item_id=item.id))
        deleted.append(item.label)
    done["saved_items_deleted"] = deleted
    accounts = (await nod.approvals.ListAccounts(approvals.ListAccountsRequest())).accounts
    for account in accounts:
        await nod.approvals.DisconnectAccount(
            approvals.DisconnectAccountRequest(account_id=account.id)
        )
    disconnected = [account.label for account in accounts]
    done["apps_disconnected"] = disconnected
    done["app_actions_words_erased"] = await _erase_when_over(
        lambda: nod.approvals.EraseActionWords(approvals.EraseActionWordsRequest()),
        "still_open",
        "app actions",
    )
    done["removed"] = await store.remove_person(parts.engine, name)
    if as_json:
        emit_json(done)
        return 0
    say(f"Ended {done['sessions_ended']} session(s) of {name}.")
    say(f"Stopped {len(stopped.tasks)} task(s)" + _listed(done["tasks_stopped"]))
    say(f"Erased {erased.deleted} picture(s) of the pages their tasks saw.")
    say(f"Erased the words of {done['tasks_words_erased']} task(s).")
    say(f"Deleted {len(deleted)} saved item(s)" + _listed(deleted))
    say(f"Disconnected {len(disconnected)} app(s)" + _listed(disconnected))
    say(f"Erased the words of {done['app_actions_words_erased']} app action(s).")
    say(f"Removed {name}: they can no longer sign in.")
    return 0


async def _erase_when_over(erase: Callable[[], Awaitable[Any]], waiting: str, what: str) -> int:
    """Calls `erase` until its reply's `waiting` list is empty (each of
    the person's records is erased once it is over), for up to
    ENDS_TOLD_WITHIN_S; how many had words erased."""
    erased = 0
    deadline = asyncio.get_running_loop().time() + ENDS_TOLD_WITHIN_S
    while True:
        done = await erase()
        erased += done.erased
        left = list(getattr(done, waiting))
        if not left:
            return erased
        if asyncio.get_running_loop().time() >= deadline:
            raise Failed(
                f"{len(left)} of their {what} are not over yet ({', '.join(left)});"
                " the person is kept: run this again"
            )
        await asyncio.sleep(0.5)


def _listed(values) -> str:
    return ": " + ", ".join(values) + "." if values else "."
