"""The rules of reading a page over frames, alone (no browser): refs that
name their frame, one page made of the frames' reads, a code fitted to its
boxes, where an entry would send its values, and which entry a site's
answer to a submission belongs to."""

from dataclasses import dataclass, field

import pytest

from nod_browser.adapters.request_guard import SubmitAnswers
from nod_browser.domain.addresses import Destination, entry_destination
from nod_browser.domain.code_boxes import CodeDoesNotFit, split_code
from nod_browser.domain.frame_reads import FrameRead, merge
from nod_browser.domain.private_fields import private_kind
from nod_browser.domain.targets import Ref, dom_selector, is_ref, parse_ref, qualified_ref
from nodkit.errors import FailedPrecondition

LIMITS = {"maxFields": 3, "maxControls": 3, "maxNotices": 2, "maxHeadings": 2}


def test_a_ref_names_its_frame_and_a_bare_ref_the_page_itself():
    assert parse_ref("e12") == Ref("f0", "e12")
    assert parse_ref("f2.e7") == Ref("f2", "e7")
    assert parse_ref("#f2.e7") is None and parse_ref("f2.") is None
    assert not is_ref("f2.e7 > input") and is_ref("f10.e3")
    assert dom_selector("f2.e7") == '[data-nod-ref="e7"]'
    assert (qualified_ref("f0", "e3"), qualified_ref("f4", "e3")) == ("e3", "f4.e3")
    assert qualified_ref("f4", "") == ""  # a field outside any form keeps no form ref


def document(url: str, **parts) -> dict:
    read = {
        "url": url,
        "origin": url.rsplit("/", 1)[0],
        "title": "",
        "text": "",
        "textTruncated": False,
        "forms": [],
        "fields": [],
        "controls": [],
        "notices": [],
        "headings": [],
        "loginFormPresent": False,
        "codeFormPresent": False,
        "paymentFormPresent": False,
        "signOutPresent": False,
        "overlayPresent": False,
    }
    return read | parts


def test_the_frames_reads_make_one_page_with_frame_named_refs():
    page = document(
        "http://shop.test/checkout",
        title="Checkout",
        text="Desk lamp",
        headings=["Checkout"],
        fields=[{"ref": "e3", "formRef": ""}],
        notices=[{"kind": "info", "text": "Total €25"}],
    )
    card = document(
        "http://cards.test/fields",
        text="Card number",
        forms=[{"ref": "e1"}],
        fields=[{"ref": "e2", "formRef": "e1"}, {"ref": "e3", "formRef": "e1"}],
        controls=[{"ref": "e4", "formRef": "e1"}],
        notices=[{"kind": "info", "text": "Total €25"}],
        paymentFormPresent=True,
    )

    merged = merge(
        [FrameRead("f0", "", "", page), FrameRead("f3", "f0", "Secure card payment", card)], LIMITS
    )

    assert [(f["ref"], f["formRef"], f["frameId"]) for f in merged["fields"]] == [
        ("e3", "", "f0"),
        ("f3.e2", "f3.e1", "f3"),
        ("f3.e3", "f3.e1", "f3"),
    ]
    assert [(c["ref"], c["frameId"]) for c in merged["controls"]] == [("f3.e4", "f3")]
    assert [f["ref"] for f in merged["forms"]] == ["f3.e1"]
    assert merged["frames"][1] == {
        "frameId": "f3",
        "url": "http://cards.test/fields",
        "origin": "http://cards.test",
        "parentFrameId": "f0",
        "title": "Secure card payment",
    }
    assert merged["paymentFormPresent"] and not merged["loginFormPresent"]
    assert merged["text"] == "Desk lamp\n[frame f3] Card number"
    assert merged["notices"] == [{"kind": "info", "text": "Total €25"}]  # once
    assert (merged["url"], merged["title"]) == ("http://shop.test/checkout", "Checkout")


def test_a_page_of_many_frames_is_bounded_as_one_document_is():
    many = [{"ref": f"e{n}", "formRef": ""} for n in range(3)]
    reads = [
        FrameRead(f"f{n}", "" if n == 0 else "f0", "", document("http://a.test/", fields=many))
        for n in range(3)
    ]

    merged = merge(reads, LIMITS)

    assert len(merged["fields"]) == LIMITS["maxFields"]
    with pytest.raises(ValueError):
        merge(reads[1:], LIMITS)


def test_a_code_goes_one_character_per_box_or_not_at_all():
    assert split_code("123 456", 6) == list("123456")
    assert split_code("12-34", 4) == list("1234")
    with pytest.raises(CodeDoesNotFit) as too_short:
        split_code("12345", 6)
    assert "12345" not in str(too_short.value) and "5" not in str(too_short.value)


def test_an_entry_names_its_top_page_its_fields_frame_and_its_submission():
    page = "https://shop.test/login"
    assert entry_destination(page, [page, "about:blank"]) == Destination(
        "https://shop.test", "https://shop.test", None
    )
    framed = entry_destination(
        page,
        ["https://login.test/form"],
        action_url="https://login.test/session",
        submit_frame_url="https://login.test/form",
    )
    assert framed == Destination("https://shop.test", "https://login.test", "https://login.test")
    # A form posting elsewhere says so; a javascript: action stays in its document.
    posting = entry_destination(page, [page], action_url="https://evil.test/collect?x=1")
    assert posting.submit_origin == "https://evil.test"
    script = entry_destination(
        page,
        ["https://login.test/form"],
        action_url="javascript:void(0)",
        submit_frame_url="https://login.test/form",
    )
    assert script.submit_origin == "https://login.test"
    with pytest.raises(FailedPrecondition) as mail:
        entry_destination(page, [page], action_url="mailto:someone@evil.test")
    assert mail.value.reason == "SUBMISSION_NOT_WEB"
    with pytest.raises(FailedPrecondition) as nowhere:
        entry_destination("about:blank", [])
    assert nowhere.value.reason == "NO_ORIGIN"


def test_fields_on_several_sites_are_refused_but_a_card_may_use_its_shops_page():
    page = "https://shop.test/checkout"
    with pytest.raises(FailedPrecondition) as split:
        entry_destination(page, [page, "https://evil.test/"])
    assert split.value.reason == "FIELDS_ON_SEVERAL_SITES"
    # A card: the holder's name on the shop's page, the number in its provider's frame.
    card = entry_destination(page, [page, "https://cards.test/number"], embeds=True)
    assert card.frame_origin == "https://cards.test"
    with pytest.raises(FailedPrecondition):
        entry_destination(page, ["https://cards.test/", "https://evil.test/"], embeds=True)


def test_a_card_holders_field_is_masked_with_no_private_kind():
    assert private_kind("card") == ""
    assert private_kind("card_security_code") == "card_security_code"


# --- which waiting entry a site's answer belongs to -----------------------


@dataclass(eq=False)
class FakePage:
    opened_by: "FakePage | None" = None

    async def opener(self):
        return self.opened_by


@dataclass
class FakeFrame:
    page: FakePage


@dataclass
class FakeRequest:
    frame: FakeFrame
    navigation: bool = True

    def is_navigation_request(self) -> bool:
        return self.navigation


@dataclass
class Calls:
    made: list[str] = field(default_factory=list)

    def to(self, name: str):
        async def call() -> None:
            self.made.append(name)

        return call


async def answer(answers: SubmitAnswers, request: FakeRequest) -> None:
    await answers.answered(request)  # type: ignore[arg-type]


async def test_a_popups_submission_answers_the_entry_of_the_page_that_opened_it():
    answers, calls = SubmitAnswers(), Calls()
    page, other = FakePage(), FakePage()
    popup = FakePage(opened_by=page)
    with answers.calling(page, calls.to("page")), answers.calling(other, calls.to("other")):  # type: ignore[arg-type]
        await answer(answers, FakeRequest(FakeFrame(page), navigation=False))  # a fetch
        assert calls.made == []
        await answer(answers, FakeRequest(FakeFrame(popup)))  # a form sent to a new window
        assert calls.made == ["page"]
        await answer(answers, FakeRequest(FakeFrame(FakePage())))  # a page of no one's
    assert calls.made == ["page"]


async def test_each_waiting_entry_is_answered_once():
    answers, calls = SubmitAnswers(), Calls()
    page = FakePage()
    with answers.calling(page, calls.to("entry")):  # type: ignore[arg-type]
        for _ in range(2):
            await answer(answers, FakeRequest(FakeFrame(page)))
    assert calls.made == ["entry"]
