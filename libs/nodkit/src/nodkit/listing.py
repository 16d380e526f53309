"""Keyset pages of a person's records, oldest first, on (created_at, id).

The API layer turns `page_size` and `page_token` into a PageRequest; the
store runs its query through fetch_page(); the reply carries the page's
items and `next_page_token`. Tokens are opaque to callers.
"""

import base64
import json
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Generic, TypeVar

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

from nodkit.errors import InvalidArgument

T = TypeVar("T")
DEFAULT_PAGE = 50
MAX_PAGE = 500


@dataclass(frozen=True)
class PageRequest:
    limit: int = DEFAULT_PAGE
    after: tuple[datetime, str] | None = None


@dataclass(frozen=True)
class Page(Generic[T]):
    items: list[T]
    next_token: str


def page_request(page_size: int, page_token: str) -> PageRequest:
    if page_size < 0 or page_size > MAX_PAGE:
        raise InvalidArgument("page_size", f"must be between 0 and {MAX_PAGE}")
    return PageRequest(page_size or DEFAULT_PAGE, _decode(page_token))


def _encode(created_at: datetime, row_id: object) -> str:
    raw = json.dumps([created_at.isoformat(), str(row_id)]).encode()
    return base64.urlsafe_b64encode(raw).decode()


def _decode(token: str) -> tuple[datetime, str] | None:
    if not token:
        return None
    try:
        created_at, row_id = json.loads(base64.urlsafe_b64decode(token.encode()))
        return datetime.fromisoformat(created_at), str(uuid.UUID(row_id))
    except (ValueError, TypeError, AttributeError):
        raise InvalidArgument("page_token", "is not a token from a previous page") from None


async def fetch_page(
    conn: AsyncConnection,
    query: sa.Select,
    table: sa.Table,
    page: PageRequest,
    to_record: Callable[[sa.Row], T],
) -> Page[T]:
    """One page of `query` (already filtered to the person) in (created_at, id) order."""
    created_at, row_id = table.c.created_at, table.c.id
    if page.after is not None:
        query = query.where(
            sa.tuple_(created_at, row_id)
            > sa.tuple_(
                sa.literal(page.after[0], created_at.type), sa.literal(page.after[1], row_id.type)
            )
        )
    rows = list(await conn.execute(query.order_by(created_at, row_id).limit(page.limit + 1)))
    shown = rows[: page.limit]
    token = _encode(shown[-1].created_at, shown[-1].id) if len(rows) > page.limit else ""
    return Page([to_record(row) for row in shown], token)
