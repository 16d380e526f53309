"""A person at their browser: a Chromium context of their own, signed in
through the sign-in page, with every console error kept (a page that logs
one fails the test that opened it) and screenshots saved as artifacts.
Every page the gateway serves them, and each page as they left it, is kept
for the session's private-value scan (nodtest.observed); every private
value they type into the gateway's forms is one of its canaries."""

import asyncio
import contextlib
import pathlib
import re
import urllib.parse

from playwright.async_api import Browser, BrowserContext, Page, Request, Response, expect
from playwright.async_api import Error as PlaywrightError

from nodtest import canaries, observed

# What the gateway serves that a person reads (an event stream never ends:
# what it brought is in the page as they left it; scripts and styles are ours).
PAGE_TYPES = ("text/html", "text/plain", "application/json")
# A task page's state badge, once the task has ended: how it came out (or,
# for a task the tasks service judged no outcome for, its state's words).
ENDED = re.compile(
    r"^(Done|Didn't finish|May have happened|Stopped|Stopped short.*|Interrupted.*)$"
)


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
        self._reading: set[asyncio.Task] = set()

    @property
    def url(self) -> str:
        return self.nod.gateway_url

    async def open(
        self, width: int = 1280, java_script: bool = True, bypass_csp: bool = False
    ) -> Page:
        """bypass_csp: for a test that adds a checker's script to the page."""
        self.context = await self.chromium.new_context(
            viewport={"width": width, "height": 900},
            base_url=self.url,
            java_script_enabled=java_script,
            bypass_csp=bypass_csp,
        )
        self.context.on("request", self._note_typed)
        self.context.on("response", self._keep_page)
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

    def _note_typed(self, request: Request) -> None:
        if request.method != "POST" or not request.url.startswith(self.url):
            return
        body = (request.post_data_buffer or b"").decode(errors="replace")
        fields = dict(urllib.parse.parse_qsl(body))
        path = urllib.parse.urlsplit(request.url).path
        # A private form's one field: a password, a code or a security code.
        if "/forms/" in path and fields.get("value"):
            canaries.register(fields["value"], f"typed in the private form {path}")
        canaries.register_fields(fields, f"typed at {path}")

    def _keep_page(self, response: Response) -> None:
        kind = response.headers.get("content-type", "")
        if response.url.startswith(self.url) and kind.startswith(PAGE_TYPES):
            task = asyncio.ensure_future(self._read_page(response))
            self._reading.add(task)
            task.add_done_callback(self._reading.discard)

    async def _read_page(self, response: Response) -> None:
        try:
            body = await response.text()
        except PlaywrightError:
            return  # the page went on before its body was read
        observed.keep(f"gateway page: {response.url}", body)

    async def close(self) -> None:
        if self.context is not None:
            for page in self.context.pages:
                with contextlib.suppress(PlaywrightError):
                    observed.keep(f"gateway page as left: {page.url}", await page.content())
            await asyncio.gather(*self._reading, return_exceptions=True)
            await self.context.close()
        assert not self.console_errors, f"console errors: {self.console_errors}"
