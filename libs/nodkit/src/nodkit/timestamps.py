"""datetime <-> google.protobuf.Timestamp."""

from datetime import UTC, datetime

from google.protobuf.timestamp_pb2 import Timestamp

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def to_proto(value: datetime | None) -> Timestamp | None:
    """Exact to the microsecond, and cheap: it is on every reply's path."""
    if value is None:
        return None
    since = value - EPOCH
    return Timestamp(seconds=since.days * 86400 + since.seconds, nanos=since.microseconds * 1000)


def from_proto(value: Timestamp) -> datetime:
    return value.ToDatetime(tzinfo=UTC)
