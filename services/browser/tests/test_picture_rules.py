"""Where a page's picture is painted, the rules alone (no browser): the
segments a shown-back value touches, read together as a page read's text
is (a value one character per element is found), and the whole pixels the
paint covers."""

from nod_browser.domain.pictures import clipped, paint_boxes, shown_in, shows_any
from nod_browser.domain.shown_back import EnteredValues

VALUE = "Qz-pw-381925-kv"


def entered(*values: str) -> EnteredValues:
    remembered = EnteredValues()
    for value in values:
        remembered.remember(value)
    return remembered


def test_the_segments_a_value_touches_are_found_and_no_others():
    spans = entered(VALUE).spans
    texts = ["Welcome", f"We got   {VALUE}\n  thank you", "Below", VALUE.upper(), "Qz-pw"]
    assert shown_in(spans, texts) == {1, 3}


def test_a_value_spread_one_character_per_element_marks_each_of_them():
    spans = entered(VALUE).spans
    texts = ["Your password:", *VALUE, "is safe with us"]
    touched = shown_in(spans, texts)
    assert touched == set(range(1, 1 + len(VALUE)))


def test_a_value_in_any_dressing_is_found_and_nothing_when_none_was_entered():
    assert shows_any(entered(VALUE).spans, ["sent: password=Qz%2Dpw%2D381925%2Dkv"])
    assert not shows_any(entered(VALUE).spans, ["nothing", "to see"])
    assert shown_in(EnteredValues().spans, [VALUE]) == set()


def test_paint_covers_whole_pixels_with_one_to_spare_inside_the_picture():
    assert paint_boxes([(10.4, 20.6, 5.2, 3.1)], 100, 100) == [(9, 19, 8, 6)]
    assert paint_boxes([(-5.0, 95.5, 20.0, 20.0)], 100, 100) == [(0, 94, 16, 6)]
    assert paint_boxes([(200.0, 10.0, 5.0, 5.0)], 100, 100) == []
    # The same box twice is painted once.
    assert paint_boxes([(1.0, 1.0, 2.0, 2.0)] * 2, 100, 100) == [(0, 0, 4, 4)]


def test_a_frames_box_is_cut_to_what_the_frame_shows():
    assert clipped((0.0, 0.0, 50.0, 50.0), (10.0, 10.0, 20.0, 100.0)) == (10.0, 10.0, 20.0, 40.0)
    assert clipped((0.0, 0.0, 5.0, 5.0), (10.0, 10.0, 20.0, 20.0)) is None
