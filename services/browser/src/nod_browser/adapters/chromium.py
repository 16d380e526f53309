"""One headless Chromium per process (Debian's, never a downloaded build);
every session gets its own context, so cookies and storage never cross."""

import os
import shutil

from playwright.async_api import Browser, BrowserContext, Playwright, async_playwright

from nodkit.startup import StartupError

LAUNCH_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def find_chromium(configured: str = "") -> str:
    if configured:
        if not (os.path.isfile(configured) and os.access(configured, os.X_OK)):
            raise StartupError(
                f"NOD_BROWSER_CHROMIUM names no program ({configured}); install Debian's"
                " chromium or give its path"
            )
        return configured
    path = shutil.which("chromium") or shutil.which("chromium-browser")
    if not path:
        raise StartupError(
            "no Chromium on PATH; install Debian's chromium (apt-get install chromium)"
            " or set NOD_BROWSER_CHROMIUM to its path"
        )
    return path


class Chromium:
    def __init__(self, playwright: Playwright, browser: Browser) -> None:
        self._playwright = playwright
        self._browser = browser

    @classmethod
    async def launch(cls, configured_path: str = "") -> "Chromium":
        playwright = await async_playwright().start()
        try:
            browser = await playwright.chromium.launch(
                executable_path=find_chromium(configured_path), headless=True, args=LAUNCH_ARGS
            )
        except BaseException:
            await playwright.stop()
            raise
        return cls(playwright, browser)

    async def new_context(self) -> BrowserContext:
        # Service workers could answer requests where the request guard can't see them.
        return await self._browser.new_context(service_workers="block", accept_downloads=False)

    async def close(self) -> None:
        await self._browser.close()
        await self._playwright.stop()
