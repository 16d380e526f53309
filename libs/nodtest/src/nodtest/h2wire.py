"""Just enough of HTTP/2 framing (cleartext, as gRPC between nod's services
in tests) for a fault proxy to see where a call's request ends and where
its answer starts: a request is a stream the client opens with HEADERS and
ends with END_STREAM; its answer is the server's first HEADERS or DATA on
that stream."""

import struct
from dataclasses import dataclass

PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
DATA = 0x0
HEADERS = 0x1
END_STREAM = 0x1


@dataclass(frozen=True)
class Frame:
    raw: bytes

    @property
    def type(self) -> int:
        return self.raw[3]

    @property
    def flags(self) -> int:
        return self.raw[4]

    @property
    def stream_id(self) -> int:
        return struct.unpack("!I", self.raw[5:9])[0] & 0x7FFFFFFF

    @property
    def opens_or_carries(self) -> bool:
        return self.type in (DATA, HEADERS) and self.stream_id != 0

    @property
    def answers(self) -> bool:
        """The server's reply itself: its message (DATA) or its status (the
        trailers, END_STREAM). nod's servers send their initial metadata
        first, before the call is served: that is not the answer yet."""
        return self.opens_or_carries and (self.type == DATA or bool(self.flags & END_STREAM))

    @property
    def ends_stream(self) -> bool:
        return self.opens_or_carries and bool(self.flags & END_STREAM)


class FrameSplitter:
    """Cuts a byte stream into the client preface (once, if expected) and frames."""

    def __init__(self, *, preface: bool) -> None:
        self._buffer = bytearray()
        self._preface = preface

    def feed(self, data: bytes) -> list[Frame]:
        self._buffer += data
        frames: list[Frame] = []
        if self._preface:
            if len(self._buffer) < len(PREFACE):
                return frames
            frames.append(Frame(bytes(self._buffer[: len(PREFACE)])))
            del self._buffer[: len(PREFACE)]
            self._preface = False
        while len(self._buffer) >= 9:
            size = 9 + int.from_bytes(self._buffer[:3], "big")
            if len(self._buffer) < size:
                break
            frames.append(Frame(bytes(self._buffer[:size])))
            del self._buffer[:size]
        return frames
