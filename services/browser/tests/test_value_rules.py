"""Where a private value may go, alone (no browser): the fields each value
field takes, the words of a refusal, the origins an entry's values may
reach, every form a request can carry a value in, and an entry's typing
stopped by a request its values were stopped in."""

import asyncio
import json
from urllib.parse import quote, quote_plus, urlencode

import pytest

from nod_browser.adapters.value_guard import ValueGuard, ValuesSentElsewhere
from nod_browser.domain.destinations import allowed_origins, check_destination
from nod_browser.domain.entry import VALUE_FIELDS
from nod_browser.domain.field_rules import (
    ALL_RULES,
    FIELD_COVERED,
    FIELD_RULES,
    KINDS,
    WHY,
    WRONG_FIELD_KIND,
    metric_rule,
    refusal_text,
    rules_for_the_page,
)
from nod_browser.domain.private_fields import ENTERED
from nod_browser.domain.value_finder import ValueFinder
from nodkit.errors import FailedPrecondition

PASSWORD = 'pw <&> "q"/ y+z!é'


def test_every_value_field_has_the_fields_it_may_go_into():
    names = set().union(*VALUE_FIELDS.values())
    assert names == set(KINDS)
    assert KINDS["password"].input_types == ("password",)
    assert KINDS["number"].looks_like == ("card_number",)
    # Only a one-time code may sit in a transparent input (over drawn boxes).
    assert {n for n, k in KINDS.items() if k.may_be_transparent} == {"code", "totp_code"}


def test_the_page_judges_a_field_by_its_looks_not_by_the_runners_mark():
    page = rules_for_the_page()
    assert ENTERED not in page["privateRules"]
    assert set(page["rules"].values()) == set(FIELD_RULES)
    json.dumps(page)  # as the page takes it


def test_a_refusal_names_the_field_and_says_why_in_words():
    assert refusal_text("fields.password", WRONG_FIELD_KIND) == (
        "fields.password: this is not a password field, and the value goes only into a"
        " password field"
    )
    assert refusal_text("fields.code", FIELD_COVERED).startswith(
        "fields.code: something else is shown over the field"
    )
    assert set(WHY) == set(FIELD_RULES)
    for rule in FIELD_RULES:
        words = refusal_text("fields.username", rule)
        assert "_" not in words.removeprefix("fields.username"), words  # no rule names


def test_refusals_are_counted_under_a_bounded_rule_label():
    assert {metric_rule(rule) for rule in ALL_RULES} == {rule.lower() for rule in ALL_RULES}
    assert metric_rule("ANYTHING_ELSE") == "other"


def test_an_entrys_values_may_go_to_the_top_page_and_its_fields_frames():
    allowed = allowed_origins(
        None, "https://shop.test", ["https://cards.test", None, "https://shop.test"]
    )
    assert allowed == {"https://shop.test", "https://cards.test"}
    check_destination("submit", "https://cards.test", allowed)
    with pytest.raises(FailedPrecondition) as elsewhere:
        check_destination("submit", "https://evil.test", allowed)
    assert (elsewhere.value.reason, elsewhere.value.metadata["field"]) == (
        "SUBMITS_ELSEWHERE",
        "submit",
    )
    assert "https://evil.test" in elsewhere.value.message
    with pytest.raises(FailedPrecondition) as nowhere:
        check_destination("fields.password", None, allowed)
    assert "no web origin" in nowhere.value.message


@pytest.mark.parametrize(
    "carried",
    [
        PASSWORD,
        PASSWORD.upper(),
        quote(PASSWORD, safe=""),
        quote(PASSWORD, safe="").lower(),
        quote_plus(PASSWORD),
        urlencode({"p": PASSWORD}),
        json.dumps({"p": PASSWORD}),  # \" \u00e9, as Python writes JSON
        json.dumps({"p": PASSWORD}, ensure_ascii=False).replace("/", "\\/"),
        quote(json.dumps({"p": PASSWORD}), safe=""),  # JSON in a query string
        "".join(f"\\u{ord(c):04x}" for c in PASSWORD),
    ],
)
def test_a_value_is_found_in_every_form_a_request_carries_it_in(carried):
    assert ValueFinder([PASSWORD]).found_in(f"GET /collect?{carried}&x=1")


def test_a_number_is_found_whole_with_or_without_its_separators():
    finder = ValueFinder(["4111 1111 1111 1111", "737"])
    assert finder.found_in("n=4111111111111111")
    assert finder.found_in('{"n":"4111-1111-1111-1111"}')
    assert finder.found_in("cvc=737")
    assert not finder.found_in("order=17370&n=41111111111111112")


def test_nothing_else_is_found():
    finder = ValueFinder([PASSWORD, "  "])
    assert not finder.found_in("pw <&> q y z")
    assert not ValueFinder([]).found_in(PASSWORD) and ValueFinder([]).empty
    assert PASSWORD not in repr(finder)


# --- an entry told of a request its values were stopped in -----------------


async def test_a_stop_while_the_entry_types_stops_the_typing():
    held = ValueGuard().watch(frozenset({"https://shop.test"}))
    typed: list[str] = []

    async def typing() -> None:
        typed.append("first field")
        await asyncio.sleep(10)
        typed.append("second field")

    async def stop_soon() -> None:
        await asyncio.sleep(0.05)
        held.stopped_to = "https://evil.test"
        held.stopped.set()

    stopping = asyncio.ensure_future(stop_soon())
    with pytest.raises(ValuesSentElsewhere) as stopped:
        await asyncio.wait_for(held.unless_sent_elsewhere(typing()), 5)
    await stopping

    assert typed == ["first field"]
    assert stopped.value.destination == "https://evil.test"


async def test_the_entrys_own_end_stops_its_typing_too():
    held = ValueGuard().watch(frozenset({"https://shop.test"}))
    finished: list[str] = []

    async def typing() -> None:
        try:
            await asyncio.sleep(10)
        finally:
            finished.append("typing")

    with pytest.raises(TimeoutError):
        await asyncio.wait_for(held.unless_sent_elsewhere(typing()), 0.05)

    assert finished == ["typing"]  # cancelled with it, not left running
    await held.unless_sent_elsewhere(asyncio.sleep(0))  # no stop: work that ends, ends it
