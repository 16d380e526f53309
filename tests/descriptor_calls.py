"""Every method of every service, from the protos' descriptors, and one
generic way to call any of them: the end-to-end authorization and fuzzing
tests build requests from these and read what came back."""

import dataclasses

import grpc
from google.protobuf import message_factory
from google.protobuf.descriptor import Descriptor, MethodDescriptor
from google.protobuf.message import Message

from nod.approvals.v1 import approvals_pb2
from nod.browser.v1 import browser_pb2
from nod.claims.v1 import claims_pb2
from nod.payments.v1 import payments_pb2
from nod.tasks.v1 import tasks_pb2

SERVICE_OF = {
    claims_pb2: "claims",
    approvals_pb2: "approvals",
    payments_pb2: "payments",
    browser_pb2: "browser",
    tasks_pb2: "tasks",
}


def every_method() -> list[tuple[str, MethodDescriptor]]:
    """(the process that serves it, the method), for every method."""
    return [
        (SERVICE_OF[module], method)
        for module in SERVICE_OF
        for service in module.DESCRIPTOR.services_by_name.values()
        for method in service.methods
    ]


def path_of(method: MethodDescriptor) -> str:
    return f"/{method.containing_service.full_name}/{method.name}"


def request_class(method: MethodDescriptor) -> type[Message]:
    return message_factory.GetMessageClass(method.input_type)


def is_plain_message(descriptor: Descriptor) -> bool:
    """One of nod's own messages (not a map entry, not a well-known type)."""
    return not descriptor.GetOptions().map_entry and descriptor.full_name.startswith("nod.")


@dataclasses.dataclass(frozen=True)
class Answer:
    code: grpc.StatusCode
    details: str
    # The reply (the first message of a stream), when the call succeeded.
    reply: Message | None
    # Every text the caller can see: status details, trailing metadata
    # (the rich status), and the reply.
    seen: bytes


async def call(
    channel: grpc.aio.Channel,
    method: MethodDescriptor,
    request: Message,
    metadata,
    timeout_s: float = 20,
) -> Answer:
    response_class = message_factory.GetMessageClass(method.output_type)
    kwargs = {
        "request_serializer": type(request).SerializeToString,
        "response_deserializer": response_class.FromString,
    }
    try:
        if method.server_streaming:
            stream = channel.unary_stream(path_of(method), **kwargs)(
                request, metadata=metadata, timeout=timeout_s
            )
            first = await stream.read()
            stream.cancel()
            reply = None if first is grpc.aio.EOF else first
        else:
            reply = await channel.unary_unary(path_of(method), **kwargs)(
                request, metadata=metadata, timeout=timeout_s
            )
    except grpc.aio.AioRpcError as error:
        trailing = b"".join(
            value if isinstance(value, bytes) else str(value).encode()
            for _, value in (error.trailing_metadata() or ())
        )
        details = error.details() or ""
        return Answer(error.code(), details, None, details.encode() + trailing)
    seen = reply.SerializeToString() if reply is not None else b""
    return Answer(grpc.StatusCode.OK, "", reply, seen)


async def call_every_page(
    channel: grpc.aio.Channel, method: MethodDescriptor, request: Message, metadata
) -> Answer:
    """A list call followed to its last page; what was seen on all of them."""
    answer = await call(channel, method, request, metadata)
    seen = answer.seen
    has_pages = "page_token" in method.input_type.fields_by_name
    while has_pages and answer.reply is not None and answer.reply.next_page_token:  # type: ignore[attr-defined]
        following = type(request)()
        following.CopyFrom(request)
        following.page_token = answer.reply.next_page_token  # type: ignore[attr-defined]
        answer = await call(channel, method, following, metadata)
        seen += answer.seen
    return dataclasses.replace(answer, seen=seen)
