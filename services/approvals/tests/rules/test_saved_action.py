"""The saved action (G7): what the person sees is byte-for-byte what runs.
The proposal is frozen as canonical JSON, so the same proposal however its
keys were ordered has one text and one digest, and any change another; the
webhook body is the parameters' bytes cut from that text; parameters are
normalised (whole numbers as ints), bounded, and hold no card number."""

import hashlib
import json
import math

import pytest

from nod_approvals.domain.saved_action import (
    MAX_PARAMETERS_BYTES,
    SavedAction,
    canonical_json,
    normalise,
    parameters_json,
)
from nodkit.errors import InvalidArgument

ACCOUNT = "3f2b8c1e-5a6d-4e7f-9a0b-1c2d3e4f5a6b"
PARAMETERS = {"order": {"id": "A-1001", "lines": [{"sku": "teapot", "qty": 2}]}, "note": "né"}


def freeze(**changes) -> SavedAction:
    values = {"app": "webhook", "account_id": ACCOUNT, "action": "send", "parameters": PARAMETERS}
    return SavedAction.freeze(**{**values, **changes})


# --- canonical JSON and its digest ---------------------------------------------


def test_canonical_json_sorts_keys_at_every_depth_without_spaces_and_keeps_text_as_is():
    assert (
        canonical_json({"b": 1, "a": {"d": [1, 2], "c": "é"}}) == '{"a":{"c":"é","d":[1,2]},"b":1}'
    )


def test_the_same_proposal_in_another_key_order_has_the_same_text_and_digest():
    reordered = {"note": "né", "order": {"lines": [{"qty": 2, "sku": "teapot"}], "id": "A-1001"}}
    assert freeze(parameters=reordered) == freeze()


@pytest.mark.parametrize(
    "changes",
    [
        {"app": "smtp"},
        {"account_id": "3f2b8c1e-5a6d-4e7f-9a0b-1c2d3e4f5a6c"},
        {"action": "send_again"},
        {"parameters": {**PARAMETERS, "note": "ne"}},
        {"parameters": {"order": {"id": "A-1001", "lines": [{"sku": "teapot", "qty": 3}]}}},
        {"parameters": {"order": {"id": "A-1001", "lines": []}, "note": "né"}},
    ],
)
def test_any_change_to_what_runs_changes_the_digest(changes):
    assert freeze(**changes).digest != freeze().digest


def test_a_lists_order_is_part_of_what_runs():
    assert freeze(parameters={"lines": ["a", "b"]}) != freeze(parameters={"lines": ["b", "a"]})


def test_the_digest_is_the_sha256_of_the_stored_text():
    saved = freeze()
    assert saved.digest == hashlib.sha256(saved.text.encode()).hexdigest()
    assert json.loads(saved.text) == {
        "account_id": ACCOUNT,
        "action": "send",
        "app": "webhook",
        "parameters": PARAMETERS,
    }


def test_a_saved_action_is_intact_until_its_text_or_digest_changes():
    saved = freeze()
    assert saved.is_intact()
    assert not SavedAction(saved.text.replace("teapot", "kettle"), saved.digest).is_intact()
    assert not SavedAction(saved.text, freeze(action="other").digest).is_intact()


# --- the body a webhook receives -----------------------------------------------


def test_the_body_is_exactly_the_parameters_bytes_cut_from_the_stored_text():
    saved = freeze()
    assert saved.body() == parameters_json(PARAMETERS)
    assert saved.text.endswith(saved.body() + "}")
    assert json.loads(saved.body()) == PARAMETERS


def test_the_body_is_found_whatever_the_action_or_the_parameters_hold():
    tricky = {"parameters": {"parameters": 1}, "x": ',"parameters":'}
    saved = freeze(action='send,"parameters":{}', parameters=tricky)
    assert json.loads(saved.body()) == tricky
    assert saved.body() == canonical_json(tricky)


def test_an_empty_parameters_body_is_an_empty_object():
    assert freeze(parameters={}).body() == "{}"


# --- normalising what came in a protobuf Struct ----------------------------------


def test_whole_numbers_become_ints_again_and_fractions_stay():
    normalised = normalise({"qty": 2.0, "price": 12.5, "lines": [1.0, -3.0], "deep": {"n": 0.0}})
    assert normalised == {"qty": 2, "price": 12.5, "lines": [1, -3], "deep": {"n": 0}}
    assert type(normalised["qty"]) is int and type(normalised["lines"][1]) is int
    assert canonical_json(normalised) == '{"deep":{"n":0},"lines":[1,-3],"price":12.5,"qty":2}'


def test_a_whole_number_too_large_for_an_exact_int_stays_a_float():
    assert type(normalise(float(2**53))) is float
    assert type(normalise(float(2**53 - 1))) is int


def test_booleans_nulls_and_ints_are_kept_as_they_are():
    assert normalise({"yes": True, "no": False, "none": None, "n": 7}) == {
        "yes": True,
        "no": False,
        "none": None,
        "n": 7,
    }
    assert normalise(True) is True


@pytest.mark.parametrize(
    ("parameters", "field"),
    [
        ({"a": math.nan}, "parameters.a"),
        ({"a": {"b": math.inf}}, "parameters.a.b"),
        ({"items": [1.0, -math.inf]}, "parameters.items[1]"),
    ],
)
def test_nan_or_infinity_is_refused_naming_where_it_is(parameters, field):
    with pytest.raises(InvalidArgument) as refused:
        normalise(parameters)
    assert refused.value.field == field
    assert refused.value.description == "must be a finite number"


@pytest.mark.parametrize(
    ("parameters", "field"),
    [
        ({"note": "card 4242 4242 4242 4242"}, "parameters.note"),
        ({"lines": ["ok", "4242-4242-4242-4242"]}, "parameters.lines[1]"),
        ({"4242424242424242": "the key holds it"}, "parameters"),
        ({"deep": {"keys": {"4242 4242 4242 4242": 1}}}, "parameters.deep.keys"),
        ({"amount": 4242424242424242.0}, "parameters.amount"),
        # A fraction as the saved text writes it: two groups joined by a dot.
        ({"amount": 4242.424242424242}, "parameters.amount"),
        ({"rows": [1, 42424242.42424242]}, "parameters.rows[1]"),
    ],
)
def test_a_card_number_in_a_value_a_key_or_a_number_is_refused_naming_where(parameters, field):
    with pytest.raises(InvalidArgument) as refused:
        normalise(parameters)
    assert refused.value.field == field


# --- the size bound --------------------------------------------------------------


def test_parameters_exactly_at_the_byte_bound_go_ahead_one_byte_over_do_not():
    filler = len('{"a":""}')
    at_bound = {"a": "x" * (MAX_PARAMETERS_BYTES - filler)}
    assert len(parameters_json(at_bound).encode()) == MAX_PARAMETERS_BYTES
    with pytest.raises(InvalidArgument) as refused:
        parameters_json({"a": "x" * (MAX_PARAMETERS_BYTES - filler + 1)})
    assert refused.value.field == "parameters"


def test_the_bound_counts_bytes_not_characters():
    filler = len('{"a":""}')
    characters = (MAX_PARAMETERS_BYTES - filler) // 2 + 1  # "é" is two bytes in UTF-8
    with pytest.raises(InvalidArgument):
        parameters_json({"a": "é" * characters})
    assert parameters_json({"a": "é" * (characters - 1)})
