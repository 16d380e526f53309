"""A look (G14): when nod can't tell whether something happened, it may go
and see, never do it again. A look goes from a session of its own, opened
for it and read-only from its birth (adapters/read_only.py: its pages send
nothing but reads, and no call acts on it). Looking from a task's session
(for the person's sign-in), that new session starts with copies of the
task session's cookies and storage, and of what its masks and value guard
know of the values entered there; the task's session itself is left as it
was, to go on acting once the person has answered. The look goes to the
address the caller took from its records, waits for the page to settle as
a read after a submission does, reads it with every mask a read has, and
takes the person's picture of it. Its caller closes the look's session
once read. Nothing a look does reaches a site but reads, so a resent look
simply looks again (from another new session)."""

import asyncio
from dataclasses import dataclass

from nod_browser.adapters.painter import Painter
from nod_browser.adapters.screenshots import Picture
from nod_browser.app.browsing import navigate, picture, read
from nod_browser.app.sessions import Session, Sessions
from nod_browser.settings import BrowserSettings
from nodkit.errors import Unavailable
from nodkit.logging import get_logger

log = get_logger("nod_browser.looking")


@dataclass(frozen=True)
class Looked:
    page: dict
    # None: the picture could not be taken (the look itself still counts).
    picture: Picture | None


async def look(session: Session, url: str, painter: Painter, settings: BrowserSettings) -> Looked:
    # A look's session is read-only from its birth; this only makes sure.
    session.turn_read_only()
    await navigate(session, url, settings)
    page = await read(session, settings, settle=True)
    return Looked(page, await _picture_if_taken(session, painter, settings))


async def look_in_new_session(
    sessions: Sessions,
    session: Session,
    url: str,
    painter: Painter,
    settings: BrowserSettings,
    *,
    looked_from: Session | None = None,
) -> Looked:
    """A look from the session opened for it (with copies from
    `looked_from`'s, if any): one that fails closes it again, as its caller
    never learns its id (no one could use or close it)."""
    log.info(
        "look.started",
        session_id=session.id,
        task_id=session.task_id,
        from_session_id=looked_from.id if looked_from else "",
    )
    try:
        return await session.run(look(session, url, painter, settings))
    except BaseException:
        await asyncio.shield(sessions.close([session]))
        raise


async def _picture_if_taken(
    session: Session, painter: Painter, settings: BrowserSettings
) -> Picture | None:
    """The evidence is the page read; a picture that fails is said so in
    the log, and the look answers without it."""
    try:
        return await picture(session, painter, settings)
    except Unavailable as error:
        log.warning("look.no_picture", session_id=session.id, reason=error.reason)
        return None
