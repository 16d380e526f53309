"""Who may call what, over every method of every service, generated from
the protos' descriptors so that a new method can't be left out: no
credential and a wrong token answer UNAUTHENTICATED; each calling service's
own token answers PERMISSION_DENIED on a method nodkit.callers doesn't let
it call, and gets past the door (any answer but those, never INTERNAL or
UNKNOWN) on one it may. Run against the whole system as `make run` starts
it, with its per-service tokens."""

import pathlib
import uuid

import grpc
import pytest
from google.protobuf import message_factory
from google.protobuf.descriptor import MethodDescriptor

from nod.approvals.v1 import approvals_pb2
from nod.browser.v1 import browser_pb2
from nod.claims.v1 import claims_pb2
from nod.payments.v1 import payments_pb2
from nod.tasks.v1 import tasks_pb2
from nodkit.callers import ALLOWED_CALLERS
from nodtest.make_run import MakeRun

ROOT = pathlib.Path(__file__).resolve().parent.parent
SERVICE_OF = {
    claims_pb2: "claims",
    approvals_pb2: "approvals",
    payments_pb2: "payments",
    browser_pb2: "browser",
    tasks_pb2: "tasks",
}
CALLERS = ("browser", "tasks", "gateway", "payments")
AT_THE_DOOR = {grpc.StatusCode.UNAUTHENTICATED, grpc.StatusCode.PERMISSION_DENIED}
NEVER = {grpc.StatusCode.INTERNAL, grpc.StatusCode.UNKNOWN}


def every_method() -> list[tuple[str, MethodDescriptor]]:
    return [
        (SERVICE_OF[module], method)
        for module in SERVICE_OF
        for service in module.DESCRIPTOR.services_by_name.values()
        for method in service.methods
    ]


def path_of(method: MethodDescriptor) -> str:
    return f"/{method.containing_service.full_name}/{method.name}"


def test_every_method_has_its_callers_named():
    # A method missing from the table is open to the single token alone:
    # fail closed, but say so here, so a new method is a decision.
    assert sorted(path_of(m) for _, m in every_method()) == sorted(ALLOWED_CALLERS)


@pytest.fixture(scope="module")
def system(tmp_path_factory):
    run = MakeRun(
        ROOT, tmp_path_factory.mktemp("authz") / "var", f"nod_test_authz_{uuid.uuid4().hex[:8]}"
    )
    run.start()
    yield run
    run.stop()
    run.clean()


async def answer_to(
    channel: grpc.aio.Channel, method: MethodDescriptor, metadata
) -> grpc.StatusCode:
    request_class = message_factory.GetMessageClass(method.input_type)
    response_class = message_factory.GetMessageClass(method.output_type)
    args = (path_of(method),)
    kwargs = {
        "request_serializer": request_class.SerializeToString,
        "response_deserializer": response_class.FromString,
    }
    try:
        if method.server_streaming:
            call = channel.unary_stream(*args, **kwargs)(
                request_class(), metadata=metadata, timeout=5
            )
            async for _ in call:
                break
            call.cancel()
        else:
            await channel.unary_unary(*args, **kwargs)(
                request_class(), metadata=metadata, timeout=5
            )
    except grpc.aio.AioRpcError as error:
        return error.code()
    return grpc.StatusCode.OK


def tokens_of(run: MakeRun) -> dict[str, str]:
    lines = (run.var / "service-tokens").read_text().splitlines()
    return dict(line.split(" ", 1) for line in lines if line.strip())


async def test_every_method_answers_each_caller_as_the_table_says(system):
    tokens = tokens_of(system)
    wrong = [("authorization", "Bearer not-a-token"), ("x-nod-user", "ada")]
    seen: list[str] = []
    for service, method in every_method():
        channel = system.channel(service)
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
