"""Opaque page tokens for keyset paging on (created_at, id), ids being UUIDs."""

import base64
import json
import uuid
from datetime import datetime

from nodkit.errors import InvalidArgument


def encode(created_at: datetime, row_id: str) -> str:
    raw = json.dumps([created_at.isoformat(), row_id]).encode()
    return base64.urlsafe_b64encode(raw).decode()


def page(rows: list, limit: int) -> tuple[list, str]:
    """Callers fetch limit + 1 rows: a row past the limit means there is a
    next page, which starts after the last row shown."""
    if len(rows) <= limit:
        return rows, ""
    rows = rows[:limit]
    return rows, encode(rows[-1].created_at, rows[-1].id)


def decode(token: str) -> tuple[datetime, str] | None:
    if not token:
        return None
    try:
        created_at, row_id = json.loads(base64.urlsafe_b64decode(token.encode()))
        return datetime.fromisoformat(created_at), str(uuid.UUID(row_id))
    except (ValueError, TypeError, AttributeError):
        raise InvalidArgument("page_token", "is not a token from a previous page") from None
