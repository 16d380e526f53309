"""An OTLP/gRPC trace receiver on loopback: the real collector protocol
(opentelemetry-proto's TraceService), keeping every span it is sent so a
test can follow a trace across services and scan spans for private values."""

import asyncio
from dataclasses import dataclass, field

import grpc
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2, trace_service_pb2_grpc
from opentelemetry.proto.common.v1.common_pb2 import AnyValue


@dataclass(frozen=True)
class ReceivedSpan:
    service: str
    name: str
    trace_id: str
    span_id: str
    parent_span_id: str
    attributes: dict[str, str]
    # Its events' names and attributes (an exception's message and stack).
    events: tuple[str, ...] = ()
    status_message: str = ""

    def text(self) -> str:
        """Everything the span says, for a scan for private values."""
        pairs = " ".join(f"{k}={v}" for k, v in sorted(self.attributes.items()))
        return " ".join((self.service, self.name, pairs, *self.events, self.status_message))


def _value(value: AnyValue) -> str:
    kind = value.WhichOneof("value")
    return "" if kind is None else str(getattr(value, kind))


@dataclass
class OtlpReceiver(trace_service_pb2_grpc.TraceServiceServicer):
    spans: list[ReceivedSpan] = field(default_factory=list)
    exports: int = 0
    _server: grpc.aio.Server | None = None
    port: int = 0

    async def Export(self, request, context):
        self.exports += 1
        for resource_spans in request.resource_spans:
            attributes = {a.key: _value(a.value) for a in resource_spans.resource.attributes}
            service = attributes.get("service.name", "")
            for scope in resource_spans.scope_spans:
                for span in scope.spans:
                    self.spans.append(
                        ReceivedSpan(
                            service=service,
                            name=span.name,
                            trace_id=span.trace_id.hex(),
                            span_id=span.span_id.hex(),
                            parent_span_id=span.parent_span_id.hex(),
                            attributes={a.key: _value(a.value) for a in span.attributes},
                            events=tuple(
                                " ".join((event.name, *(_value(a.value) for a in event.attributes)))
                                for event in span.events
                            ),
                            status_message=span.status.message,
                        )
                    )
        return trace_service_pb2.ExportTraceServiceResponse()

    async def start(self) -> str:
        self._server = grpc.aio.server()
        trace_service_pb2_grpc.add_TraceServiceServicer_to_server(self, self._server)
        self.port = self._server.add_insecure_port("127.0.0.1:0")
        await self._server.start()
        return self.endpoint

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def stop(self) -> None:
        if self._server is not None:
            await self._server.stop(None)

    def trace(self, trace_id: str) -> list[ReceivedSpan]:
        return [s for s in self.spans if s.trace_id == trace_id]

    def chain(self, span: ReceivedSpan) -> list[ReceivedSpan]:
        """The span and its ancestors up to the trace's root, as received."""
        by_id = {s.span_id: s for s in self.trace(span.trace_id)}
        chain = [span]
        while chain[-1].parent_span_id in by_id:
            chain.append(by_id[chain[-1].parent_span_id])
        return chain

    async def wait_for(self, predicate, timeout_s: float = 30.0) -> list[ReceivedSpan]:
        """Spans arrive in batches after the work: waits until one matches."""
        deadline = asyncio.get_running_loop().time() + timeout_s
        while asyncio.get_running_loop().time() < deadline:
            found = [s for s in self.spans if predicate(s)]
            if found:
                return found
            await asyncio.sleep(0.2)
        raise AssertionError(f"no such span among {len(self.spans)} received")
