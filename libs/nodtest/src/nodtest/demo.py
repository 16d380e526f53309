"""Fixtures for the demo shop: a fresh, real local website for each test,
with a saved-login account (password = the canary) and one with a
one-time-code step."""

import asyncio

import pytest

from nodtest.addresses import OTHER_SITE_HOST, SITE_HOST
from nodtest.canaries import CANARY_PASSWORD

SHOP_USERNAME = "ada@example.com"
SHOP_TOTP_USERNAME = "grace@example.com"
SHOP_TOTP_SEED = "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP"


@pytest.fixture
async def shop_site():
    from nod_demo.shop import Account, start_shop

    shop = await start_shop(
        [
            Account(SHOP_USERNAME, CANARY_PASSWORD),
            Account(SHOP_TOTP_USERNAME, CANARY_PASSWORD, SHOP_TOTP_SEED),
        ],
        host=SITE_HOST,
        # The same shop under another origin, for pages that must be elsewhere.
        also_on=[OTHER_SITE_HOST],
    )
    yield shop
    await shop.close()


def shop_count(shop, form: str) -> int:
    return shop.state.snapshot()["counts"][form]


async def shop_wait_for_count(shop, form: str, expected: int, timeout_s: float = 10.0) -> None:
    """Polls until the shop has received `expected` submissions of `form`."""
    deadline = asyncio.get_running_loop().time() + timeout_s
    while shop_count(shop, form) < expected:
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(
                f"the shop saw {shop_count(shop, form)} {form} submissions, expected {expected}"
            )
        await asyncio.sleep(0.05)
