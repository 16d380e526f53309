"""Origins as every service stores, compares and shows them: the form a
browser reports for a page, so a binding matches the page it was made for
and a look-alike internationalised name reads as the other name it is."""

import pytest

from nodkit.errors import InvalidArgument
from nodkit.validation import origin


@pytest.mark.parametrize(
    ("given", "stored"),
    [
        ("https://Shop.Example", "https://shop.example"),
        ("https://shop.example:443/", "https://shop.example"),
        ("http://127.0.0.2:8080", "http://127.0.0.2:8080"),
        ("https://my_shop.example", "https://my_shop.example"),
        # A Cyrillic о in place of the Latin o: another name, shown as such.
        ("https://sh\u043ep.example", "https://xn--shp-ted.example"),
        ("https://b\u00fccher.example:8443", "https://xn--bcher-kva.example:8443"),
        ("https://xn--bcher-kva.example", "https://xn--bcher-kva.example"),
    ],
)
def test_an_origin_is_stored_as_the_browser_reports_it(given, stored):
    assert origin("merchant_origin", given) == stored


def test_a_look_alike_never_equals_the_name_it_imitates():
    assert origin("origin", "https://sh\u043ep.example") != origin("origin", "https://shop.example")


def test_a_name_that_is_no_valid_internationalised_name_is_refused():
    with pytest.raises(InvalidArgument) as refused:
        origin("merchant_origin", "https://-b\u00fccher.example")
    assert refused.value.field == "merchant_origin"
    assert "not a valid internationalised name" in str(refused.value)
