"""Step results: the model's view is made from the typed result; what is
stored reads back as the same typed result (never from the view)."""

from nod_tasks.domain.checks import Check, PaymentOutcome
from nod_tasks.domain.pages import Notice, Page, PageControl, PageField
from nod_tasks.domain.results import (
    ActionEnded,
    Failed,
    OpenedForm,
    Paid,
    Recorded,
    Submitted,
    from_json,
    page_of,
    to_json,
)
from nod_tasks.domain.tasks import FormKind

PAGE = Page(
    url="https://shop.test/login",
    title="Sign in",
    text="Wrong password",
    fields=(PageField("e1", "password", "password", masked=True),),
    controls=(PageControl("e2", "submit", "Sign in"),),
    notices=(Notice("error", "Wrong password"),),
    login_form=True,
)


def test_a_result_survives_storage_as_the_same_typed_value():
    for result in (
        Submitted(Check.DID_NOT_WORK, "c1", PAGE, "L", OpenedForm("f", FormKind.LOGIN)),
        Paid("p1", PaymentOutcome.DECLINED, PAGE),
        Failed("nothing was typed", nothing_typed=True),
        ActionEnded("done", "done", "200", ""),
    ):
        assert from_json(to_json(result)) == result


def test_the_model_is_shown_what_it_needs_and_the_rules_read_the_typed_fields():
    result = Submitted(Check.DID_NOT_WORK, "c1", PAGE, "L", OpenedForm("f", FormKind.LOGIN))
    view = result.for_model()
    assert view["check"] == "did_not_work" and view["entered"] is True
    assert view["private_form"] == {"form_id": "f", "kind": "login", "state": "open"}
    assert view["page"]["fields"] == [
        {"ref": "e1", "name": "password", "type": "password", "masked": True}
    ]
    assert page_of(result) == PAGE


def test_an_earlier_versions_result_is_kept_as_it_was_recorded():
    old = {"outcome": "submitted", "check": "worked", "page": {"url": "https://a.test/"}}
    assert from_json(old) == Recorded(old)
    assert to_json(Recorded(old)) == old
    assert page_of(Recorded(old)) == Page(url="https://a.test/")
