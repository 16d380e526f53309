"""One page read out of the reads of its frames' documents: each frame's
refs named with its frame ("f2.e7"), its fields and controls marked with
their frame, the page checks true when any frame shows the thing, and every
list still bounded as a read of one document is."""

from dataclasses import dataclass

from nod_browser.domain.targets import MAIN_FRAME, qualified_ref

PAGE_CHECKS = (
    "loginFormPresent",
    "codeFormPresent",
    "paymentFormPresent",
    "signOutPresent",
    "overlayPresent",
)


@dataclass(frozen=True)
class FrameRead:
    frame_id: str
    # Empty for the main frame.
    parent_frame_id: str
    # The iframe element's title or name (empty for the main frame).
    title: str
    # What read_page.js returned for the frame's document.
    raw: dict


def _in_frame(items: list[dict], frame_id: str, ref_keys: tuple[str, ...]) -> list[dict]:
    named = []
    for item in items:
        item = dict(item)
        for key in ref_keys:
            item[key] = qualified_ref(frame_id, item.get(key, ""))
        named.append(item)
    return named


def merge(reads: list[FrameRead], limits: dict[str, int]) -> dict:
    """`reads`: the main frame's first. `limits`: maxFields, maxControls,
    maxNotices, maxHeadings over the whole page."""
    main = reads[0]
    if main.frame_id != MAIN_FRAME:
        raise ValueError("the main frame's read comes first")
    page: dict = {
        "url": main.raw["url"],
        "title": main.raw["title"],
        "forms": [],
        "fields": [],
        "controls": [],
        "notices": [],
        "headings": [],
        "frames": [],
        **{check: False for check in PAGE_CHECKS},
    }
    texts, truncated, seen_notices = [], False, set()
    for read in reads:
        raw, frame_id = read.raw, read.frame_id
        page["frames"].append(
            {
                "frameId": frame_id,
                "url": raw["url"],
                "origin": raw["origin"],
                "parentFrameId": read.parent_frame_id,
                "title": read.title,
            }
        )
        page["forms"] += _in_frame(raw["forms"], frame_id, ("ref",))
        for field in _in_frame(raw["fields"], frame_id, ("ref", "formRef")):
            page["fields"].append({**field, "frameId": frame_id})
        for control in _in_frame(raw["controls"], frame_id, ("ref", "formRef")):
            page["controls"].append({**control, "frameId": frame_id})
        for notice in raw["notices"]:
            if notice["text"] not in seen_notices:
                seen_notices.add(notice["text"])
                page["notices"].append(notice)
        page["headings"] += raw["headings"]
        for check in PAGE_CHECKS:
            page[check] = page[check] or bool(raw[check])
        if raw["text"]:
            # What a frame shows is told apart from the page's own text.
            shown = raw["text"] if frame_id == MAIN_FRAME else f"[frame {frame_id}] {raw['text']}"
            texts.append(shown)
        truncated = truncated or raw["textTruncated"]
    page["fields"] = page["fields"][: limits["maxFields"]]
    page["controls"] = page["controls"][: limits["maxControls"]]
    page["notices"] = page["notices"][: limits["maxNotices"]]
    page["headings"] = page["headings"][: limits["maxHeadings"]]
    page["text"] = "\n".join(texts)
    page["textTruncated"] = truncated
    return page
