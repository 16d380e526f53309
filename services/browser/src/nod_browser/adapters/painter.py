"""Paint over parts of a page's picture, in the runner's own page: an
offline context on about:blank that no site's script or style can reach, so
nothing a page does (hiding Playwright's mask overlay with its own CSS, say)
can take the paint off. The picture goes in as PNG and comes out as PNG."""

import asyncio
import base64
from collections.abc import Sequence

from playwright.async_api import BrowserContext, Page

from nod_browser.adapters.chromium import Chromium

PAINT = """async ([png, boxes, color]) => {
  const bytes = Uint8Array.from(atob(png), (c) => c.charCodeAt(0));
  const bitmap = await createImageBitmap(new Blob([bytes], { type: "image/png" }));
  const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
  const context = canvas.getContext("2d");
  context.drawImage(bitmap, 0, 0);
  context.fillStyle = color;
  for (const [x, y, w, h] of boxes) context.fillRect(x, y, w, h);
  const blob = await canvas.convertToBlob({ type: "image/png" });
  const painted = new Uint8Array(await blob.arrayBuffer());
  let text = "";
  for (let i = 0; i < painted.length; i += 0x8000) {
    text += String.fromCharCode(...painted.subarray(i, i + 0x8000));
  }
  return btoa(text);
}"""


class Painter:
    def __init__(self, chromium: Chromium) -> None:
        self._chromium = chromium
        self._context: BrowserContext | None = None
        self._page: Page | None = None
        self._opening = asyncio.Lock()

    async def _ready(self) -> Page:
        async with self._opening:
            if self._page is None or self._page.is_closed():
                if self._context is not None:
                    await self._context.close()
                self._context = await self._chromium.offline_context()
                self._page = await self._context.new_page()
            return self._page

    async def paint(
        self, png: bytes, boxes: Sequence[tuple[int, int, int, int]], color: str
    ) -> bytes:
        """The picture with each box (whole pixels) filled with `color`."""
        page = await self._ready()
        painted = await page.evaluate(
            PAINT, [base64.b64encode(png).decode(), [list(box) for box in boxes], color]
        )
        return base64.b64decode(painted)

    async def close(self) -> None:
        if self._context is not None:
            await self._context.close()
            self._context = self._page = None
