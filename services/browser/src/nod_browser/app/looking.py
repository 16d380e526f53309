"""A look (G14): when nod can't tell whether something happened, it may go
and see, never do it again. The session turns read-only before it goes
anywhere (adapters/read_only.py: its pages send nothing but reads, and no
call acts on it any more); then it goes to the address the caller took from
its records, waits for the page to settle as a read after a submission
does, reads it with every mask a read has, and takes the person's picture
of it. Nothing a look does reaches a site but reads, so a resent look
simply looks again."""

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
    session.turn_read_only()
    await navigate(session, url, settings)
    page = await read(session, settings, settle=True)
    return Looked(page, await _picture_if_taken(session, painter, settings))


async def look_in_new_session(
    sessions: Sessions, session: Session, url: str, painter: Painter, settings: BrowserSettings
) -> Looked:
    """A look from a session opened for it: one that fails closes it again,
    as its caller never learns its id (no one could use or close it)."""
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
