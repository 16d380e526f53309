"""Every gRPC reply (and error) the test process receives, kept for the leak
scan, and every private value it sends to the vault registered as a canary.

Installed once per session (install()): each grpc.aio channel opened in the
test process, the tests' own and those of services running in it, gets a
recorder as its last interceptor. It only reads; the calls go as they would.

The one reply that may carry a private value is the one that grants a
claim (ClaimResponse.secret_fields when granted, G1/G2): that field of that
reply is left out of what is kept, and its values become canaries, since
they must show nowhere else."""

import functools
from collections.abc import AsyncIterator, Callable
from typing import Any

import grpc
from google.protobuf import json_format
from google.protobuf.message import Message

from nod.claims.v1 import claims_pb2
from nodtest.canaries import Canaries, session_canaries
from nodtest.observed import Observations, session_observations


class Recorder:
    def __init__(self, canaries: Canaries, observations: Observations) -> None:
        self.canaries = canaries
        self.observations = observations

    def request(self, method: str, request: Any) -> None:
        if isinstance(request, claims_pb2.PutItemRequest):
            self.canaries.register_fields(request.item.fields, f"vault item, {method}")
        elif isinstance(request, claims_pb2.PutPrivateEntryRequest):
            self.canaries.register_fields(request.fields, f"private entry, {method}")

    def reply(self, method: str, reply: Any) -> None:
        if not isinstance(reply, Message):
            return
        if isinstance(reply, claims_pb2.ClaimResponse) and reply.granted:
            self.canaries.register_fields(reply.secret_fields, f"granted by {method}")
            shown = claims_pb2.ClaimResponse()
            shown.CopyFrom(reply)
            shown.ClearField("secret_fields")
            reply = shown
        self.observations.keep(f"gRPC reply: {method}", _as_text(reply))

    def error(self, method: str, error: grpc.aio.AioRpcError) -> None:
        trailers = error.trailing_metadata() or ()
        text = f"{error.code().name}: {error.details()} {list(trailers)}"
        self.observations.keep(f"gRPC error: {method}", text)


def _as_text(message: Message) -> str:
    # JSON writes a map as {"name": "value"}, which the scan can read a
    # field's name next to its value in.
    return json_format.MessageToJson(message, preserving_proto_field_name=True, indent=None)


def _method(details: grpc.aio.ClientCallDetails) -> str:
    method = details.method
    return method.decode() if isinstance(method, bytes) else str(method)


class _UnaryUnary(grpc.aio.UnaryUnaryClientInterceptor):
    def __init__(self, recorder: Callable[[], Recorder]) -> None:
        self._recorder = recorder

    async def intercept_unary_unary(self, continuation, client_call_details, request):
        recorder, method = self._recorder(), _method(client_call_details)
        recorder.request(method, request)
        call = await continuation(client_call_details, request)
        try:
            recorder.reply(method, await call)
        except grpc.aio.AioRpcError as error:
            recorder.error(method, error)
        # Done already: the caller's await gets the same reply or error.
        return call


class _UnaryStream(grpc.aio.UnaryStreamClientInterceptor):
    def __init__(self, recorder: Callable[[], Recorder]) -> None:
        self._recorder = recorder

    async def intercept_unary_stream(self, continuation, client_call_details, request):
        recorder, method = self._recorder(), _method(client_call_details)
        recorder.request(method, request)
        call = await continuation(client_call_details, request)
        return _recorded_stream(recorder, method, call)


async def _recorded_stream(recorder: Recorder, method: str, call) -> AsyncIterator[Any]:
    try:
        async for reply in call:
            recorder.reply(method, reply)
            yield reply
    except grpc.aio.AioRpcError as error:
        recorder.error(method, error)
        raise


_session_recorder = Recorder(session_canaries(), session_observations())
_current: list[Recorder] = [_session_recorder]


def current() -> Recorder:
    return _current[-1]


class recording_into:
    """Within the block, calls are recorded into `recorder` instead of the
    session's (to try the scan on values of a test's own)."""

    def __init__(self, recorder: Recorder) -> None:
        self.recorder = recorder

    def __enter__(self) -> Recorder:
        _current.append(self.recorder)
        return self.recorder

    def __exit__(self, *_exc: object) -> None:
        _current.remove(self.recorder)


def _with_recorder(open_channel):
    @functools.wraps(open_channel)
    def opened(*args, interceptors=None, **kwargs):
        recorders = [_UnaryUnary(current), _UnaryStream(current)]
        return open_channel(*args, interceptors=[*(interceptors or ()), *recorders], **kwargs)

    opened.records_replies = True  # type: ignore[attr-defined]
    return opened


def install() -> None:
    """Every grpc.aio channel opened from now on records its replies."""
    for name in ("insecure_channel", "secure_channel"):
        factory = getattr(grpc.aio, name)
        if not getattr(factory, "records_replies", False):
            setattr(grpc.aio, name, _with_recorder(factory))
