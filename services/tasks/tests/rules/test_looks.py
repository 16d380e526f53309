"""What a look counts as evidence (G14): only a sign that the thing
happened, read from the place itself; never a conclusion that it didn't."""

from datetime import UTC, datetime

from nod_tasks.domain import looks
from nod_tasks.domain.outside import AppRecordPlace
from nod_tasks.domain.pages import Page, PageControl

SHOP = "http://127.0.0.2:8001"
ENTRY_BEGAN = datetime(2026, 12, 6, 20, 30, 0, tzinfo=UTC)


def _page(text: str = "", **kwargs) -> Page:
    return Page(url=f"{SHOP}/orders", title="Your orders", text=text, **kwargs)


def test_an_order_of_the_amount_placed_since_the_entry_is_found():
    page = _page("Your orders\nORD-1 · €25.00 · placed 2026-12-06 20:30:02 UTC")
    found = looks.order_since(page, 2500, "EUR", ENTRY_BEGAN)
    assert found == datetime(2026, 12, 6, 20, 30, 2, tzinfo=UTC)


def test_an_earlier_order_of_the_same_amount_is_not_this_one():
    page = _page("ORD-0 · €25.00 · placed 2026-12-06 19:02:11 UTC")
    assert looks.order_since(page, 2500, "EUR", ENTRY_BEGAN) is None


def test_another_amount_or_a_time_without_its_zone_is_no_sign():
    assert (
        looks.order_since(
            _page("ORD-2 · €26.00 · 2026-12-06 20:31:00 UTC"), 2500, "EUR", ENTRY_BEGAN
        )
        is None
    )
    # A time with no zone can't be compared with the entry's: no evidence.
    assert (
        looks.order_since(_page("ORD-3 · €25.00 · 2026-12-06 20:31:00"), 2500, "EUR", ENTRY_BEGAN)
        is None
    )
    # The amount and the time must be on the same line (the same order).
    split = _page("ORD-4 · €25.00\nORD-5 · €9.00 · 2026-12-06 20:31:00 UTC")
    assert looks.order_since(split, 2500, "EUR", ENTRY_BEGAN) is None


def test_offsets_and_iso_spellings_are_read():
    page = _page("order 7 EUR 25.00 2026-12-06T21:30:01+01:00")
    assert looks.order_since(page, 2500, "EUR", ENTRY_BEGAN) == datetime(
        2026, 12, 6, 20, 30, 1, tzinfo=UTC
    )


def test_signed_in_needs_the_account_page_without_a_sign_in_form():
    account = Page(url=f"{SHOP}/account", title="Your account", text="Signed in as ada")
    assert looks.signed_in(account)
    with_sign_out = Page(url=f"{SHOP}/", title="Home", text="Welcome", sign_out=True)
    assert looks.signed_in(with_sign_out)
    sign_in_page = Page(
        url=f"{SHOP}/login", title="Sign in", text="Signed in as nobody", login_form=True
    )
    assert not looks.signed_in(sign_in_page)
    code_page = Page(url=f"{SHOP}/otp", title="Code", text="Signed in as ada", code_form=True)
    assert not looks.signed_in(code_page)
    assert not looks.signed_in(Page(url="chrome-error://chromewebdata/", text="Signed in as"))


def test_a_look_follows_only_the_same_sites_links():
    home = Page(
        url=f"{SHOP}/",
        controls=(
            PageControl("e1", kind="link", text="Your orders", href="https://evil.example/o"),
            PageControl("e2", kind="link", text="Your orders", href="/orders"),
        ),
    )
    assert looks.link_to(home, looks.ORDER_LINKS, SHOP) == f"{SHOP}/orders"
    assert looks.link_to(home, looks.ACCOUNT_LINKS, SHOP) == ""


def test_an_app_lists_the_execution_by_its_key():
    place = AppRecordPlace("webhook", "0b9d-key", "http://127.0.0.3:9/received/{execution_id}")
    assert place.url == "http://127.0.0.3:9/received/0b9d-key"
    assert looks.received(Page(url=place.url, text="#1 /hooks/nod 0b9d-key"), "0b9d-key")
    assert not looks.received(Page(url=place.url, text="#1 /hooks/nod other"), "0b9d-key")
    assert not looks.received(Page(url=place.url, text="anything"), "")
