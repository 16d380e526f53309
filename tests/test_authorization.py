"""Who may call what, over every method of every service, generated from
the protos' descriptors so that a new method can't be left out: no
credential and a wrong token answer UNAUTHENTICATED; each calling service's
own token answers PERMISSION_DENIED on a method nodkit.callers doesn't let
it call, and gets past the door (any answer but those, never INTERNAL or
UNKNOWN) on one it may. Run against the whole system as `make run` starts
it, with its per-service tokens.

And another person: every method naming an object (an id field, known to
owned_objects.ID_FIELDS) is called with the owner's real object by someone
else, and answers NOT_FOUND when the method's own service owns that object;
otherwise (a task id given to the vault, say) it answers from the caller's
own things only. Either way the reply holds nothing of the owner's and the
owner's objects are as they were; then the owner's same call gets past the
check."""

import re

import grpc
import pytest
from google.protobuf.descriptor import MethodDescriptor

from nod.browser.v1 import browser_pb2
from nod.claims.v1 import claims_pb2
from nod.tasks.v1 import tasks_pb2
from nodkit.callers import ALLOWED_CALLERS
from nodtest.make_run import MakeRun

from .descriptor_calls import Answer, call, call_every_page, every_method, path_of, request_class
from .owned_objects import (
    ID_FIELDS,
    WAITING_TASK,
    Kind,
    OwnersObjects,
    Stubs,
    fresh,
    owned_by,
    settled_task,
)
from .person_requests import id_fields, object_fields, owners_request, short_name

CALLERS = ("browser", "tasks", "gateway", "payments", "operator")
AT_THE_DOOR = {grpc.StatusCode.UNAUTHENTICATED, grpc.StatusCode.PERMISSION_DENIED}
NEVER = {grpc.StatusCode.INTERNAL, grpc.StatusCode.UNKNOWN}


def test_every_method_has_its_callers_named():
    # A method missing from the table is open to the single token alone:
    # fail closed, but say so here, so a new method is a decision.
    assert sorted(path_of(m) for _, m in every_method()) == sorted(ALLOWED_CALLERS)


async def answer_to(
    channel: grpc.aio.Channel, method: MethodDescriptor, metadata
) -> grpc.StatusCode:
    return (await call(channel, method, request_class(method)(), metadata, timeout_s=5)).code


def tokens_of(run: MakeRun) -> dict[str, str]:
    lines = (run.var / "service-tokens").read_text().splitlines()
    return dict(line.split(" ", 1) for line in lines if line.strip())


async def test_every_method_answers_each_caller_as_the_table_says(made_run):
    tokens = tokens_of(made_run)
    wrong = [("authorization", "Bearer not-a-token"), ("x-nod-user", "ada")]
    seen: list[str] = []
    for service, method in every_method():
        channel = made_run.channel(service)
        path = path_of(method)
        assert await answer_to(channel, method, ()) == grpc.StatusCode.UNAUTHENTICATED, path
        assert await answer_to(channel, method, wrong) == grpc.StatusCode.UNAUTHENTICATED, path
        for caller in CALLERS:
            metadata = [("authorization", f"Bearer {tokens[caller]}"), ("x-nod-user", "ada")]
            code = await answer_to(channel, method, metadata)
            if caller in ALLOWED_CALLERS.get(path, frozenset()):
                assert code not in AT_THE_DOOR | NEVER, (path, caller, code)
            else:
                assert code == grpc.StatusCode.PERMISSION_DENIED, (path, caller, code)
        seen.append(path)
    assert len(seen) == len(ALLOWED_CALLERS)


# --- another person -------------------------------------------------------

# Methods whose request names no object: they act on the caller's own
# things (or a runner's lease) only.
NAMING_NO_OBJECT = {
    "ClaimsService/RenewHolder",
    "ClaimsService/ReleaseHolder",
    "VaultService/ListItems",
    "ApprovalsService/ListAccounts",
    "PaymentsService/SetLimits",
    "PaymentsService/GetLimits",
    "TasksService/StartTask",
    "TasksService/ListTasks",
    # Erases the caller's own step pictures (a person being removed).
    "TasksService/DeleteStepScreenshots",
    # Erase the words of the caller's own ended tasks and approvals that
    # are over (a person being removed).
    "TasksService/EraseTaskWords",
    "ApprovalsService/EraseActionWords",
    # The operator's re-seals act on every owner's rows, and show none of them.
    "VaultAdminService/Reseal",
    "ApprovalsAdminService/Reseal",
}
# What the owner also has, so a list (or a task-wide call) that shows or
# touches none of it for another person is seen to, and the owner's own
# call is seen to find it.
ALSO_MADE = {
    "ClaimsService/ListClaims": Kind.CLAIM,
    "VaultService/ListItems": Kind.ITEM,
    "VaultService/DiscardPrivateEntries": Kind.PRIVATE_ENTRY,
    "ApprovalsService/ListAccounts": Kind.ACCOUNT,
    "ApprovalsService/ListApprovals": Kind.APPROVAL,
    "ApprovalsService/CancelForTask": Kind.APPROVAL,
    "PaymentsService/ListPayments": Kind.PAYMENT,
    "PaymentsService/CancelForTask": Kind.PAYMENT,
    "BrowserService/ListSessions": Kind.SESSION,
    "BrowserService/CloseTaskSessions": Kind.SESSION,
    "TasksService/ListTasks": Kind.TASK,
}
# Looks up the caller's own operation by its id; the item, task and entry
# it names are compared with that operation's, so another person's answer
# is "not found" as a reply (found: false), not as a status.
LOOKUPS = {"ClaimsService/FindClaim"}
# Ids a request carries but the method ignores: ConnectAccount always makes
# a new account, so another person sending the owner's id gets a new one of
# their own, under another id.
IGNORED_IDS = {"ApprovalsService/ConnectAccount": Kind.ACCOUNT}
# Replies that count what a call did to the caller's things.
COUNTS = ("discarded", "closed", "released", "deleted", "erased")
# The owner's call that ends the waiting task's form goes last.
LAST = "TasksService/SubmitPrivateForm"


def test_every_id_field_is_in_the_table_and_every_object_free_method_is_named():
    unknown = {
        (short_name(method), name)
        for _, method in every_method()
        for name in id_fields(method)
        if name not in ID_FIELDS
    }
    assert not unknown, f"add these id fields to owned_objects.ID_FIELDS: {sorted(unknown)}"
    naming_none = {short_name(m) for _, m in every_method() if not object_fields(m)}
    assert naming_none == NAMING_NO_OBJECT
    assert set(ALSO_MADE) <= {short_name(m) for _, m in every_method()}


@pytest.fixture(scope="module")
async def owner_setting(made_run: MakeRun):
    """The owner (the demo person, whose saved shop login signs in), a task
    of theirs waiting on its private form, and a runner's live lease."""
    stubs = Stubs(made_run)
    meta = made_run.meta("ada")
    started = await stubs.tasks.StartTask(
        tasks_pb2.StartTaskRequest(text=WAITING_TASK, request_id=fresh("wait")), metadata=meta
    )
    waiting = await settled_task(stubs, meta, started.task.id, timeout_s=120)
    assert waiting.wait.kind == tasks_pb2.WAIT_KIND_PRIVATE_FORM, waiting
    holder = fresh("runner")
    await stubs.claims.RenewHolder(claims_pb2.RenewHolderRequest(holder=holder), metadata=meta)
    shop = re.search(r"demo shop: (\S+)", made_run.log_text()).group(1)  # type: ignore[union-attr]
    return stubs, meta, waiting, holder, shop


def leaked(answer: Answer, owners: OwnersObjects, request) -> list[str]:
    """The owner's ids in what another person saw, besides those they sent."""
    sent = request.SerializeToString()
    return [
        object_id
        for object_id in owners.made.values()
        if object_id.encode() in answer.seen and object_id.encode() not in sent
    ]


def counted(answer: Answer) -> int:
    reply = answer.reply
    return sum(
        getattr(reply, name) for name in COUNTS if reply is not None and hasattr(reply, name)
    )


async def test_another_person_gets_nothing_of_the_owners_from_any_method(made_run, owner_setting):
    stubs, owner_meta, waiting, holder, shop = owner_setting
    methods = sorted(every_method(), key=lambda m: short_name(m[1]) == LAST)
    checked = []
    for service, method in methods:
        name = short_name(method)
        owners = OwnersObjects(stubs, owner_meta, waiting, holder)
        if name in ALSO_MADE:
            await owners.get(ALSO_MADE[name])
        request = await owners_request(method, owners, shop)
        before = await owners.snapshot()
        stranger = made_run.meta(fresh("bea"))
        channel = made_run.channel(service)

        theirs = await call_every_page(channel, method, request, stranger)
        assert theirs.code not in NEVER, (name, theirs.code, theirs.details)
        if name in LOOKUPS:
            assert theirs.code == grpc.StatusCode.OK and not theirs.reply.found, name  # type: ignore[union-attr]
        elif name in IGNORED_IDS:
            ignored = owners.made[IGNORED_IDS[name]].encode()
            assert theirs.code == grpc.StatusCode.OK and ignored not in theirs.seen, name
        elif any(owned_by(service, field) for field, _ in object_fields(method)):
            assert theirs.code == grpc.StatusCode.NOT_FOUND, (name, theirs.code, theirs.details)
        assert not leaked(theirs, owners, request), name
        assert counted(theirs) == 0, name
        assert await owners.snapshot() == before, name

        mine = await call_every_page(channel, method, request, owner_meta)
        assert mine.code not in NEVER | {grpc.StatusCode.NOT_FOUND}, (name, mine.code, mine.details)
        if name in ALSO_MADE:
            # The owner's own call finds what the other person's didn't.
            found = owners.made[ALSO_MADE[name]].encode() in mine.seen or counted(mine) > 0
            assert mine.code == grpc.StatusCode.OK and found, (name, mine.code, mine.details)
        for caller, answered in ((stranger, theirs), (owner_meta, mine)):
            await close_opened(stubs, caller, answered)
        await owners.close_session()
        checked.append(name)
    assert len(checked) == len(ALLOWED_CALLERS)


async def close_opened(stubs: Stubs, meta, answer: Answer) -> None:
    """A session a call opened (OpenSession), closed again."""
    opened = getattr(answer.reply, "session_id", "")
    if opened:
        await stubs.browser.CloseSession(
            browser_pb2.CloseSessionRequest(session_id=opened), metadata=meta
        )
