"""Where a private form's value will go (G13), from the page the task read:
its top page's origin, and the frame of the field the model named; the
model's words never set it. And the arguments that carry it are checked."""

import pytest

from nod_tasks.domain.outside import Payment, PaymentState
from nod_tasks.domain.pages import Frame, Page, PageField, Place, origin_of, place_on
from nod_tasks.domain.tools import BadToolCall, check_call

PAGE = Page(
    url="https://Shop.Example:443/checkout?step=2",
    fields=(
        PageField("e3", name="email"),
        PageField("f1.e2", name="code", frame_id="f1"),
        PageField("f2.e1", name="pin", frame_id="f2"),
    ),
    frames=(
        Frame("f0", "https://shop.example/checkout"),
        Frame("f1", "https://codes.example:8443/box", parent_frame_id="f0"),
        Frame("f2", "about:blank", parent_frame_id="f0"),
    ),
)


def test_an_origin_is_spelled_as_the_services_keep_it():
    assert origin_of("https://Shop.Example:443/a?b") == "https://shop.example"
    assert origin_of("http://127.0.0.2:8000/") == "http://127.0.0.2:8000"
    assert origin_of("about:blank") == origin_of("chrome-error://x") == ""


def test_a_form_is_for_the_page_and_the_frame_of_its_field():
    shop = "https://shop.example"
    assert place_on(PAGE) == Place(shop, shop)
    assert place_on(PAGE, "e3") == Place(shop, shop)
    assert place_on(PAGE, "f1.e2") == Place(shop, "https://codes.example:8443")
    # A frame of no origin of its own is the page's, as the runner takes it.
    assert place_on(PAGE, "f2.e1") == Place(shop, shop)
    # A CSS selector is found in the page itself.
    assert place_on(PAGE, "#code") == Place(shop, shop)


def test_a_field_the_page_did_not_show_or_a_page_of_no_site_names_no_place():
    assert place_on(PAGE, "f1.e9") is None
    assert place_on(Page(url="about:blank")) is None


def test_the_card_goes_on_the_merchant_or_a_hosted_page_the_yes_named():
    payment = Payment(
        "p", "t", PaymentState.CONFIRMED, "https://shop.example", 100, "EUR", "d", "c", "•• 1",
        hosted_payment_origins=("https://pay.example",),
    )  # fmt: skip
    assert payment.takes_card_on("https://shop.example")
    assert payment.takes_card_on("https://pay.example")
    assert not payment.takes_card_on("http://127.0.0.2:8000")


def test_the_new_arguments_are_checked():
    check_call("ask_private_form", {"kind": "one_time_code", "reason": "r", "field": "f1.e2"})
    payment = {
        "merchant_origin": "https://shop.example",
        "amount_minor": 100,
        "currency": "EUR",
        "description": "d",
        "card_id": "c",
    }
    check_call("request_payment", payment | {"hosted_payment_origins": ["https://pay.example"]})
    for bad in ("https://pay.example", [1], [["x"]]):
        with pytest.raises(BadToolCall, match="hosted_payment_origins must be an array"):
            check_call("request_payment", payment | {"hosted_payment_origins": bad})
