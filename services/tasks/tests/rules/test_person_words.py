"""The person's own words in an event, apart from the service's notes: a
typed field since it was added; for an event written before, read from its
message the one way this service wrote them (the reader of the timeline
never parses a note)."""

from types import SimpleNamespace

from nod_tasks.store.records import to_event

AT = "2026-12-06T20:00:00+00:00"


def _row(kind: str, data: dict):
    return SimpleNamespace(task_id="t-1", number=2, at=AT, kind=kind, state="queued", data=data)


def test_the_typed_field_is_taken_as_written():
    event = to_event(_row("task.queued", {"message": "a note", "person_words": "Go on."}))
    assert event.person_words == "Go on."
    assert to_event(_row("task.queued", {"message": "x", "person_words": ""})).person_words == ""


def test_older_events_give_the_person_words_and_never_a_note():
    def words(kind: str, message: str) -> str:
        return to_event(_row(kind, {"message": message})).person_words

    assert words("task.queued", "Anything left to do?") == "Anything left to do?"
    assert words("task.queued", "private form one_time_code filled") == ""
    assert words("task.queued", "The person checked step 4: it happened.") == ""
    assert words("task.queued", "The person checked step 4: it did not happen. Not there.") == (
        "Not there."
    )
    assert words("task.ended", "Signed in.") == ""
