"""datetime <-> google.protobuf.Timestamp."""

from datetime import datetime

from google.protobuf.timestamp_pb2 import Timestamp


def to_proto(value: datetime | None) -> Timestamp | None:
    if value is None:
        return None
    stamp = Timestamp()
    stamp.FromDatetime(value)
    return stamp
