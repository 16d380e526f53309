"""A saved card whose expiry the site asks for as two selects (month and
year): the value fields expiry_month and expiry_year choose the option that
stands for the card's "MM/YY", however the site spells it; a select with
no such option refuses the entry naming the field, with nothing typed."""

import time
from dataclasses import dataclass, field

import grpc
import pytest
from aiohttp import web

from nod.claims.v1 import claims_pb2
from nod_browser.domain.card_expiry import Option, could_take, expiry_part, pick_option
from nodtest.addresses import SITE_HOST
from nodtest.browser import (
    bound_card,
    browser_open,
    browser_read,
    control_ref,
    enter_request,
    field_ref,
)
from nodtest.claims import CANARY_CARD, put_card

from .test_sessions import refused

MONTHS = "".join(
    f'<option value="{n}">{name}</option>'
    for n, name in enumerate(
        ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"],
        start=1,
    )
)


def checkout(years: range) -> str:
    """put_card's card expires 12/29: months by name, years in four digits."""
    year_options = "".join(f"<option>{y}</option>" for y in years)
    return f"""<!doctype html><html><head><title>Card</title></head><body>
<h1>Payment</h1>
<form method="post" action="/pay">
  <label for="number">Card number</label><input id="number" name="number" autocomplete="off">
  <label for="month">Expiry month</label>
  <select id="month" name="month"><option value="">Month</option>{MONTHS}</select>
  <label for="year">Expiry year</label>
  <select id="year" name="year"><option value="">Year</option>{year_options}</select>
  <button type="submit">Continue</button>
</form></body></html>"""


@dataclass
class Shop:
    url: str = ""
    years: range = range(2026, 2031)
    received: list[dict] = field(default_factory=list)


@pytest.fixture
async def shop():
    state = Shop()

    async def form(request):
        return web.Response(text=checkout(state.years), content_type="text/html")

    async def pay(request):
        state.received.append(dict(await request.post()))
        return web.Response(
            text="<!doctype html><h1>Review your order</h1>", content_type="text/html"
        )

    app = web.Application()
    app.add_routes([web.get("/", form), web.post("/pay", pay)])
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    await web.TCPSite(runner, SITE_HOST, 0).start()
    state.url = f"http://{SITE_HOST}:{runner.addresses[0][1]}"
    yield state
    await runner.cleanup()


async def card_request(claims_stub, meta, shop, session_id, card_id, page):
    fields = {
        "number": field_ref(page, "number"),
        "expiry_month": field_ref(page, "month"),
        "expiry_year": field_ref(page, "year"),
    }
    request = enter_request(
        session_id, card_id, claims_pb2.ENTRY_KIND_CARD, fields, control_ref(page, "Continue")
    )
    return await bound_card(claims_stub, meta, request, shop.url)


async def test_expiry_selects_take_the_cards_month_and_year(
    browser_stub, claims_stub, vault_stub, as_person, shop
):
    card = await put_card(vault_stub, as_person)
    session_id, page = await browser_open(browser_stub, as_person, f"{shop.url}/")

    request = await card_request(claims_stub, as_person, shop, session_id, card.id, page)
    reply = await browser_stub.EnterPrivate(request, metadata=as_person)

    assert reply.claim.state == claims_pb2.CLAIM_STATE_SUBMITTED
    assert shop.received == [{"number": CANARY_CARD, "month": "12", "year": "2029"}]
    after = await browser_read(browser_stub, as_person, session_id)
    assert CANARY_CARD not in after.text


async def test_a_select_without_the_cards_year_refuses_naming_the_field(
    browser_stub, claims_stub, vault_stub, as_person, shop
):
    shop.years = range(2030, 2035)  # no 2029
    card = await put_card(vault_stub, as_person)
    session_id, page = await browser_open(browser_stub, as_person, f"{shop.url}/")

    request = await card_request(claims_stub, as_person, shop, session_id, card.id, page)
    error = await refused(browser_stub.EnterPrivate(request, metadata=as_person))

    assert (error.code, error.reason, error.field) == (
        grpc.StatusCode.FAILED_PRECONDITION,
        "NO_MATCHING_OPTION",
        "fields.expiry_year",
    )
    assert CANARY_CARD not in error.message
    assert shop.received == []
    # Nothing was typed: the options were found before the first keystroke.
    after = await browser_read(browser_stub, as_person, session_id)
    number = next(f for f in after.fields if f.name == "number")
    assert not number.filled
    # The card was claimed (the year is known only from the grant): its
    # claim says what happened, and it is never used again.
    (claim,) = (
        await claims_stub.ListClaims(claims_pb2.ListClaimsRequest(), metadata=as_person)
    ).claims
    assert claim.state == claims_pb2.CLAIM_STATE_UNCERTAIN
    assert "nothing was typed" in claim.reason


async def test_a_start_date_select_is_refused_before_anything_is_claimed(
    browser_stub, claims_stub, vault_stub, as_person, shop
):
    # A card's start date: years gone by, none the card could expire in.
    this_year = time.gmtime().tm_year
    shop.years = range(this_year - 10, this_year + 1)
    card = await put_card(vault_stub, as_person)
    session_id, page = await browser_open(browser_stub, as_person, f"{shop.url}/")

    request = await card_request(claims_stub, as_person, shop, session_id, card.id, page)
    error = await refused(browser_stub.EnterPrivate(request, metadata=as_person))

    assert (error.code, error.reason, error.field) == (
        grpc.StatusCode.FAILED_PRECONDITION,
        "NO_MATCHING_OPTION",
        "fields.expiry_year",
    )
    claims = await claims_stub.ListClaims(claims_pb2.ListClaimsRequest(), metadata=as_person)
    assert list(claims.claims) == []  # the card was never claimed: nothing to check
    assert shop.received == []


@pytest.mark.parametrize(
    ("name", "options", "chosen"),
    [
        ("expiry_month", [("12", "12"), ("11", "11")], "12"),
        ("expiry_month", [("m11", "Nov"), ("m12", "Dec")], "m12"),
        ("expiry_month", [("x", "11 - November"), ("y", "12 - December")], "y"),
        ("expiry_month", [("1", "January"), ("12", "December")], "12"),
        ("expiry_year", [("2028", "2028"), ("2029", "2029")], "2029"),
        ("expiry_year", [("28", "28"), ("29", "29")], "29"),
        ("expiry_year", [("", "Year"), ("a", "2029")], "a"),
    ],
)
def test_an_expiry_part_finds_its_option_however_it_is_spelled(name, options, chosen):
    wanted = expiry_part(name, "12/29")
    assert wanted is not None
    found = pick_option(name, wanted, [Option(v, t) for v, t in options])
    assert found is not None and found.value == chosen


def test_no_option_or_two_options_is_no_match():
    assert pick_option("expiry_year", "2029", [Option("2030", "2030")]) is None
    # Month 1 must not be taken for 10, 11 or 12.
    assert pick_option("expiry_month", "01", [Option("10", "10"), Option("11", "11")]) is None
    assert pick_option("expiry_month", "12", [Option("a", "12"), Option("b", "Dec")]) is None
    assert expiry_part("expiry_year", "12/2031") == "2031"
    assert expiry_part("expiry_month", "not an expiry") is None


def test_only_selects_a_card_expiry_could_go_into_are_taken_before_a_claim():
    months = [Option(f"{m:02d}", f"{m:02d}") for m in range(1, 13)]
    by_name = [Option(str(m), name) for m, name in enumerate(["Jan", "Feb", "Mar", "Apr", "May",
               "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"], start=1)]  # fmt: skip
    assert could_take("expiry_month", months, 2026)
    assert could_take("expiry_month", [Option("", "Month"), *by_name], 2026)
    assert not could_take("expiry_month", months[:6], 2026)
    ahead = [Option(str(y), str(y)) for y in range(2026, 2036)]
    gone_by = [Option(str(y), str(y)) for y in range(2016, 2027)]
    assert could_take("expiry_year", ahead, 2026)
    assert not could_take("expiry_year", gone_by, 2026)  # a card's start date
    assert not could_take("expiry_year", months, 2026)
