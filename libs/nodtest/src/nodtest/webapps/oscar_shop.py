"""Fixture: a django-oscar shop with one book in stock and one customer
whose password is the canary; its checkout takes a card on Oscar's own
BankcardForm (sites/oscar_shop/checkout says how, and why a stand-in
gateway).

What the shop itself records, read from its database and its log: orders
(order_order), how each was paid (payment_source: type, amount, the last
four digits in its label), the customer's last_login, and Oscar's checkout
log line for each payment it could not take."""

import pathlib
from dataclasses import dataclass
from decimal import Decimal

import pytest

from nodtest.claims import CANARY_CARD, CANARY_PASSWORD
from nodtest.webapps.django_site import (
    RunningSite,
    cache_dir_of,
    cached_database,
    start_site,
)

SETTINGS = "oscar_shop"
LOGIN_PATH = "/accounts/login/"
# The stand-in gateway declines a card ending in 0002 (a valid card number).
DECLINED_CARD = "4000000000000002"
PAID_CARD = CANARY_CARD


@dataclass(frozen=True)
class ShopCustomer:
    email: str  # Oscar signs customers in by email
    password: str


@dataclass(frozen=True)
class ShopProduct:
    title: str
    slug: str
    price: str


CUSTOMER = ShopCustomer("grace@example.com", CANARY_PASSWORD)
PRODUCT = ShopProduct("The Art of Computer Programming", "taocp", "12.00")


@dataclass(frozen=True)
class Order:
    number: str
    total_incl_tax: Decimal
    status: str
    email: str


@dataclass(frozen=True)
class PaymentSource:
    order_number: str
    source_type: str
    amount_debited: Decimal
    label: str


class OscarShopSite:
    """The running shop, its customer and product, and what it recorded."""

    def __init__(self, site: RunningSite) -> None:
        self.server = site
        self.url = site.url
        self.login_url = site.url + LOGIN_PATH
        self.basket_url = site.url + "/basket/"
        self.customer = CUSTOMER
        self.product = PRODUCT
        ((product_id,),) = site.query(
            "SELECT id FROM catalogue_product WHERE slug = ?", PRODUCT.slug
        )
        self.product_url = f"{site.url}/catalogue/{PRODUCT.slug}_{product_id}/"

    def orders(self) -> list[Order]:
        return [
            Order(number, Decimal(str(total)), status, email)
            for number, total, status, email in self.server.query(
                "SELECT o.number, o.total_incl_tax, o.status, u.email FROM order_order o"
                " LEFT JOIN auth_user u ON u.id = o.user_id ORDER BY o.id"
            )
        ]

    def payment_sources(self) -> list[PaymentSource]:
        return [
            PaymentSource(number, name, Decimal(str(debited)), label)
            for number, name, debited, label in self.server.query(
                "SELECT o.number, t.name, s.amount_debited, s.label FROM payment_source s"
                " JOIN order_order o ON o.id = s.order_id"
                " JOIN payment_sourcetype t ON t.id = s.source_type_id ORDER BY s.id"
            )
        ]

    def declined_payments(self) -> int:
        """Oscar's checkout log: one line per payment it could not take."""
        return self.server.log_text().count("unable to take payment")

    def last_login(self) -> str | None:
        return self.server.query(
            "SELECT last_login FROM auth_user WHERE email = ?", CUSTOMER.email
        )[0][0]

    def stop(self) -> None:
        self.server.stop()


# What the shop's seed script makes: the book and the customer.
SEED = {
    "product": vars(PRODUCT),
    "customer": {"username": "grace", "email": CUSTOMER.email, "password": CUSTOMER.password},
}


async def oscar_shop_database(cache: pathlib.Path | None, scratch: pathlib.Path) -> pathlib.Path:
    """The migrated and seeded template database (kept in `cache`)."""
    return await cached_database(
        cache, SETTINGS, scratch, SEED, NODTEST_SITE_MEDIA=str(scratch / "media")
    )


async def start_oscar_shop(template: pathlib.Path, directory: pathlib.Path) -> OscarShopSite:
    """The shop on a copy of `template`, its files in `directory`; stop() it."""
    site = await start_site(
        SETTINGS,
        template,
        directory,
        LOGIN_PATH,  # a whole page: its templates are compiled before the test
        NODTEST_SITE_MEDIA=str(directory / "media"),
    )
    return OscarShopSite(site)


@pytest.fixture(scope="session", name="oscar_shop_database")
async def oscar_shop_database_fixture(pytestconfig, tmp_path_factory):
    return await oscar_shop_database(
        cache_dir_of(pytestconfig), tmp_path_factory.mktemp("oscar-shop-template")
    )


@pytest.fixture
async def oscar_shop_site(oscar_shop_database, tmp_path):
    shop = await start_oscar_shop(oscar_shop_database, tmp_path)
    yield shop
    shop.stop()
