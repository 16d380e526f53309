"""The masking rules alone (no browser): every form of an entered value is
found, a value is never cut in two by a clip, and nothing else is touched."""

import html
from urllib.parse import quote, quote_plus

from nod_browser.adapters.page_reader import CLIP, finish
from nod_browser.domain.shown_back import MASK, EnteredValues

PASSWORD = 'pw <&> "q"  y+z!'


def entered(*values: str) -> EnteredValues:
    remembered = EnteredValues()
    for value in values:
        remembered.remember(value)
    return remembered


def test_each_form_of_a_value_is_masked():
    forms = [
        PASSWORD,
        PASSWORD.upper(),
        quote(PASSWORD, safe=""),
        quote(PASSWORD, safe="").lower(),
        quote_plus(PASSWORD),
        html.escape(PASSWORD),
        "".join(f"&#x{ord(c):X};" for c in PASSWORD),
        " ".join(PASSWORD.split()),
    ]

    masked = [entered(PASSWORD).mask(f"got {form}.") for form in forms]

    assert masked == [f"got {MASK}."] * len(forms)


def test_digits_are_masked_only_as_a_whole_number():
    assert entered("737").mask("cvc=737&order=17370") == f"cvc={MASK}&order=17370"


def test_a_value_that_begins_another_does_not_unmask_its_end():
    assert entered("secret", "secretpass").mask("secretpass") == MASK


def test_a_value_at_a_clip_edge_is_masked_before_the_string_is_cut():
    values = entered(PASSWORD)
    notice = "x" * (CLIP["notice"] - 5) + quote_plus(PASSWORD)
    raw = {
        "url": "http://shop.example/",
        "title": "",
        "text": notice,
        "textTruncated": False,
        "forms": [],
        "fields": [],
        "controls": [],
        "notices": [{"kind": "error", "text": notice}],
    }

    page = finish(raw, values.mask, max_text=CLIP["notice"])

    shown = "x" * (CLIP["notice"] - 5) + MASK[:5]
    assert page["notices"][0]["text"] == shown and page["text"] == shown
    assert page["textTruncated"]


def test_nothing_is_masked_before_anything_was_entered():
    values = EnteredValues()
    assert values.mask("pw=1234") == "pw=1234" and values.reach == 0
    assert "1234" not in repr(entered("1234"))
