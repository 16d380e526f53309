"""Just enough of PostgreSQL's wire protocol (v3) for a fault proxy to see
where a transaction commits: it splits each direction into messages and
tells which client exchange carries a commit.

A client's exchange ends with a simple Query ('Q') or a Sync ('S') of the
extended protocol. It commits when it holds a COMMIT (psycopg 3 sends
`COMMIT` as a simple Query; SQLAlchemy's `engine.begin()` does that), or when
it writes outside a transaction block (autocommit: the statement commits
by itself at its Sync or at the end of its Query)."""

import re
import struct
from dataclasses import dataclass, field

# Untyped messages a client may send before its startup message.
_SSL_REQUEST = 80877103
_GSSENC_REQUEST = 80877104
_CANCEL_REQUEST = 80877102
_WRITE = re.compile(rb"\b(INSERT|UPDATE|DELETE|MERGE)\b", re.IGNORECASE)
_COMMIT = re.compile(rb"^\s*(COMMIT|END)\b", re.IGNORECASE)


@dataclass(frozen=True)
class Message:
    kind: bytes  # b"" for the untyped startup-phase messages
    raw: bytes

    @property
    def body(self) -> bytes:
        return self.raw[5:] if self.kind else self.raw[8:]


class MessageSplitter:
    """Cuts a byte stream into whole messages (bytes may arrive in any pieces)."""

    def __init__(self, *, untyped_first: bool) -> None:
        self._buffer = bytearray()
        self._untyped = untyped_first
        # A server answers SSLRequest/GSSENCRequest with a single byte.
        self.single_byte_next = False

    def feed(self, data: bytes) -> list[Message]:
        self._buffer += data
        messages: list[Message] = []
        while True:
            message = self._next()
            if message is None:
                return messages
            messages.append(message)

    def _next(self) -> Message | None:
        if self.single_byte_next:
            if not self._buffer:
                return None
            self.single_byte_next = False
            return self._cut(b"", 1)
        if self._untyped:
            if len(self._buffer) < 8:
                return None
            length, code = struct.unpack("!II", self._buffer[:8])
            if len(self._buffer) < length:
                return None
            if code not in (_SSL_REQUEST, _GSSENC_REQUEST, _CANCEL_REQUEST):
                self._untyped = False  # the startup message itself
            return self._cut(b"", length)
        if len(self._buffer) < 5:
            return None
        (length,) = struct.unpack("!I", self._buffer[1:5])
        if len(self._buffer) < 1 + length:
            return None
        return self._cut(bytes(self._buffer[:1]), 1 + length)

    def _cut(self, kind: bytes, size: int) -> Message:
        raw = bytes(self._buffer[:size])
        del self._buffer[:size]
        return Message(kind, raw)


def _cstring(body: bytes, start: int = 0) -> tuple[bytes, int]:
    end = body.index(b"\0", start)
    return body[start:end], end + 1


@dataclass
class SessionWatch:
    """What the proxy knows of one connection: its prepared statements, the
    statements of the exchange being sent, and the server's last transaction
    status (ReadyForQuery: I idle, T in a block, E failed block)."""

    prepared: dict[bytes, bytes] = field(default_factory=dict)
    unnamed: bytes = b""
    exchange_sql: list[bytes] = field(default_factory=list)
    transaction_sql: list[bytes] = field(default_factory=list)
    status: bytes = b"I"

    def client_sends(self, message: Message) -> bool:
        """Notes `message`; True if it ends an exchange that commits."""
        if message.kind == b"P":
            name, at = _cstring(message.body)
            sql, _ = _cstring(message.body, at)
            if name:
                self.prepared[name] = sql
            else:
                self.unnamed = sql
            return False
        if message.kind == b"B":
            _portal, at = _cstring(message.body)
            name, _ = _cstring(message.body, at)
            self.exchange_sql.append(self.prepared.get(name, b"") if name else self.unnamed)
            return False
        if message.kind == b"Q":
            sql, _ = _cstring(message.body)
            self.exchange_sql.append(sql)
            return self._exchange_ends()
        if message.kind == b"S":
            return self._exchange_ends()
        return False

    def server_sends(self, message: Message) -> None:
        if message.kind == b"Z":
            self.status = message.body[:1]
            if self.status == b"I":
                self.transaction_sql.clear()

    def commits_sql(self) -> list[bytes]:
        """The statements the last committing exchange made durable."""
        return list(self.transaction_sql)

    def _exchange_ends(self) -> bool:
        sql, self.exchange_sql = self.exchange_sql, []
        self.transaction_sql.extend(sql)
        if any(_COMMIT.match(s) for s in sql):
            return True
        return self.status == b"I" and any(_WRITE.search(s) for s in sql)
