"""Plain Playwright on Debian's Chromium for the site tests: a person's
browser, with none of nod's services between it and the site."""

import pytest
from playwright.async_api import async_playwright

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


@pytest.fixture(scope="session")
async def chromium():
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(
            executable_path="/usr/bin/chromium-headless-shell", headless=True, args=CHROMIUM_ARGS
        )
        yield browser
        await browser.close()


@pytest.fixture
async def page(chromium):
    context = await chromium.new_context()
    context.set_default_timeout(10_000)
    yield await context.new_page()
    await context.close()
