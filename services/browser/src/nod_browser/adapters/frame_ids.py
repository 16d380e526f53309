"""The session's names for the frames of its pages, shared by reading and
acting so that a ref read as "f2.e7" is acted on in the same frame.

"f0" is always the current page's main frame. Every other frame gets
"f1", "f2", ... the first time the session sees it, and keeps it for as long
as that frame lives (Playwright gives one Frame object per frame, also
across its navigations); an id is never given to another frame.
"""

from playwright.async_api import Frame, Page

from nod_browser.domain.targets import MAIN_FRAME


class FrameIds:
    def __init__(self) -> None:
        self._ids: dict[Frame, str] = {}
        self._frames: dict[str, Frame] = {}
        self._next = 1

    def id_of(self, frame: Frame) -> str:
        if frame.parent_frame is None:
            return MAIN_FRAME
        known = self._ids.get(frame)
        if known is None:
            known = f"f{self._next}"
            self._next += 1
            self._ids[frame] = known
            self._frames[known] = frame
        return known

    def frame_of(self, page: Page, frame_id: str) -> Frame | None:
        """The page's live frame of that id; None when it has none (gone,
        or a frame of another page)."""
        if frame_id == MAIN_FRAME:
            return page.main_frame
        frame = self._frames.get(frame_id)
        if frame is None or frame.is_detached() or frame.page is not page:
            return None
        return frame

    def forget_detached(self) -> None:
        for frame_id, frame in list(self._frames.items()):
            if frame.is_detached():
                del self._frames[frame_id]
                self._ids.pop(frame, None)
