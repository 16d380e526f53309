"""Wakes the watchers of an approval when this instance changes it. Changes
made elsewhere (another instance, a sweeper) are seen by the watchers' own
periodic re-read."""

import asyncio
import contextlib
from collections.abc import Iterator


class ChangeFeed:
    def __init__(self) -> None:
        self._waiting: dict[str, set[asyncio.Event]] = {}

    @contextlib.contextmanager
    def listen(self, approval_id: str) -> Iterator[asyncio.Event]:
        event = asyncio.Event()
        self._waiting.setdefault(approval_id, set()).add(event)
        try:
            yield event
        finally:
            waiting = self._waiting[approval_id]
            waiting.discard(event)
            if not waiting:
                del self._waiting[approval_id]

    def notify(self, *approval_ids: str) -> None:
        for approval_id in approval_ids:
            for event in self._waiting.get(approval_id, ()):
                event.set()
