"""A person at their browser: a Chromium context of their own, signed in
through the sign-in page, with every console error kept (a page that logs
one fails the test that opened it) and screenshots saved as artifacts."""

import pathlib
import re

from playwright.async_api import Browser, BrowserContext, Page, expect

# A task page's state badge, once the task has ended.
ENDED = re.compile(r"^(Done|Stopped|Stopped short.*|Interrupted.*)$")


class Person:
    def __init__(self, nod, chromium: Browser, name: str, password: str, shots: pathlib.Path):
        self.nod = nod
        self.chromium = chromium
        self.name = name
        self.password = password
        self.shots = shots
        self.context: BrowserContext | None = None
        self.page: Page | None = None
        self.console_errors: list[str] = []
        # Console messages a test expects (a 404 it asked for, say).
        self.expected_console: list[re.Pattern] = []

    @property
    def url(self) -> str:
        return self.nod.gateway_url

    async def open(self, width: int = 1280, java_script: bool = True) -> Page:
        self.context = await self.chromium.new_context(
            viewport={"width": width, "height": 900},
            base_url=self.url,
            java_script_enabled=java_script,
        )
        self.page = await self.new_tab()
        return self.page

    async def new_tab(self) -> Page:
        assert self.context is not None
        page = await self.context.new_page()
        page.on("console", lambda m: m.type == "error" and self._console(m.text))
        page.on("pageerror", lambda error: self._console(f"page error: {error}"))
        page.set_default_timeout(20_000)
        return page

    def _console(self, text: str) -> None:
        if not any(p.search(text) for p in self.expected_console):
            self.console_errors.append(text)

    async def sign_in(self) -> None:
        page = self.page
        assert page is not None
        await page.goto("/signin")
        await page.get_by_label("Name").fill(self.name)
        await page.get_by_label("Password").fill(self.password)
        await page.get_by_role("button", name="Sign in").click()
        await expect(page.get_by_role("heading", name="Tasks", exact=True)).to_be_visible()

    async def shot(self, name: str, page: Page | None = None) -> pathlib.Path:
        self.shots.mkdir(parents=True, exist_ok=True)
        path = self.shots / f"{name}.png"
        await (page or self.page).screenshot(path=str(path), full_page=True)  # type: ignore[union-attr]
        return path

    async def start_task(self, text: str, page: Page | None = None) -> str:
        """Starts a task from the task list (a demo task's button, or the
        text box); returns its id from the task page's address."""
        page = page or self.page
        assert page is not None
        await page.goto("/tasks")
        demo = page.get_by_role("button", name=text, exact=True)
        if await demo.count():
            await demo.click()
        else:
            await page.get_by_label("What should nod do?").fill(text)
            await page.get_by_role("button", name="Start", exact=True).click()
        await page.wait_for_url(re.compile(r"/tasks/[0-9a-f-]+$"))
        return page.url.rsplit("/", 1)[-1]

    async def close(self) -> None:
        if self.context is not None:
            await self.context.close()
        assert not self.console_errors, f"console errors: {self.console_errors}"
