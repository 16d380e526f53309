"""A page as the browser service read it (private fields and values shown
back already masked), and the part of it the model is shown: a compact
snapshot in which every element is named by the ref it can act on (a ref
names its frame: "f2.e7"), with only the attributes that say something."""

import re
from dataclasses import dataclass, fields
from typing import Any
from urllib.parse import urlsplit

MAX_TEXT = 3000
MAX_HEADINGS = 12
# An element ref as the browser names it: "e7" in the top page, "f2.e7" in frame f2.
_REF = re.compile(r"(f\d+\.)?e\d+")


@dataclass(frozen=True)
class PageField:
    ref: str
    name: str = ""
    type: str = ""
    label: str = ""
    value: str = ""
    masked: bool = False
    filled: bool = False
    # "password", "card_number", "card_expiry", "card_security_code",
    # "one_time_code" or "entered": what private value it takes, if any.
    private_kind: str = ""
    invalid: bool = False
    required: bool = False
    checked: bool = False
    options: tuple[str, ...] = ()
    # A one-time code split over this many one-character boxes.
    boxes: int = 0
    disabled: bool = False
    frame_id: str = ""
    in_shadow_root: bool = False


@dataclass(frozen=True)
class PageControl:
    ref: str
    kind: str = ""
    text: str = ""
    href: str = ""
    disabled: bool = False
    pressed: str = ""
    selected: str = ""
    expanded: str = ""
    frame_id: str = ""
    in_shadow_root: bool = False


@dataclass(frozen=True)
class Notice:
    # "error", "success" or "info"
    kind: str
    text: str


@dataclass(frozen=True)
class Frame:
    frame_id: str
    url: str = ""
    origin: str = ""
    parent_frame_id: str = ""
    title: str = ""


@dataclass(frozen=True)
class OpenPage:
    page_id: str
    url: str = ""
    title: str = ""
    current: bool = False
    opener_page_id: str = ""


@dataclass(frozen=True)
class Page:
    url: str = ""
    title: str = ""
    text: str = ""
    fields: tuple[PageField, ...] = ()
    controls: tuple[PageControl, ...] = ()
    notices: tuple[Notice, ...] = ()
    login_form: bool = False
    code_form: bool = False
    payment_form: bool = False
    frames: tuple[Frame, ...] = ()
    headings: tuple[str, ...] = ()
    pages: tuple[OpenPage, ...] = ()
    sign_out: bool = False
    overlay: bool = False

    @property
    def is_the_sites(self) -> bool:
        """A page of the site, not the browser's own (an error page, a blank one)."""
        return self.url.startswith(("http://", "https://"))

    @property
    def readable(self) -> bool:
        """Whether it shows anything to judge by: a page still loading, or one
        with only its title, shows nothing."""
        return self.is_the_sites and bool(self.text.strip() or self.fields or self.controls)

    def notices_of(self, kind: str) -> list[str]:
        return [notice.text for notice in self.notices if notice.kind == kind]

    def fields_taking(self, *private_kinds: str) -> list[PageField]:
        return [f for f in self.fields if f.private_kind in private_kinds]


def origin_of(url: str) -> str:
    """A web address's origin, spelled as the services keep origins
    (scheme://host[:port], the default port left out); "" for none."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return ""
    try:
        port = parts.port
    except ValueError:
        return ""
    host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
    default = {"http": 80, "https": 443}[parts.scheme]
    return f"{parts.scheme}://{host}" + (f":{port}" if port and port != default else "")


@dataclass(frozen=True)
class Place:
    """Where on a page a value would be typed (G13): the top page's origin
    and the origin of the frame holding the field."""

    origin: str
    frame_origin: str


def place_on(page: Page, target: str = "") -> Place | None:
    """The place of `target` (a field's ref, "f2.e7"; a bare ref or a CSS
    selector is in the top page) on the page as it was read; None when the
    page has no origin or names no field with that ref."""
    origin = origin_of(page.url)
    if not origin:
        return None
    if not target or not _REF.fullmatch(target):
        return Place(origin, origin)
    if not any(f.ref == target for f in page.fields):
        return None
    frame_id = target.partition(".")[0] if "." in target else "f0"
    frame = next((f for f in page.frames if f.frame_id == frame_id), None)
    # A frame of no origin of its own (about:blank) is the page's, as the runner sees it.
    frame_origin = origin_of(frame.url) if frame is not None else ""
    return Place(origin, frame_origin or origin)


def _shown(item: Any) -> dict[str, Any]:
    """An element's attributes that say something (not empty, not false);
    its frame is in its ref already."""
    shown = {}
    for attribute in fields(item):
        value = getattr(item, attribute.name)
        if value not in ("", False, 0, ()) and attribute.name != "frame_id":
            shown[attribute.name] = list(value) if isinstance(value, tuple) else value
    return shown


def for_model(page: Page) -> dict[str, Any]:
    """What the model is shown of a page: trimmed to what helps decide the
    next step; frames and other open pages only when there are several."""
    text = page.text
    view: dict[str, Any] = {
        "url": page.url,
        "title": page.title,
        "headings": list(page.headings[:MAX_HEADINGS]),
        "text": text[:MAX_TEXT] + ("…" if len(text) > MAX_TEXT else ""),
        "fields": [_shown(f) for f in page.fields],
        "controls": [_shown(c) for c in page.controls],
        "notices": [{"kind": n.kind, "text": n.text} for n in page.notices],
        "login_form": page.login_form,
        "code_form": page.code_form,
        "payment_form": page.payment_form,
    }
    if len(page.frames) > 1:
        view["frames"] = [{"frame_id": f.frame_id, **_shown(f)} for f in page.frames]
    if len(page.pages) > 1:
        view["pages"] = [_shown(p) for p in page.pages]
    if page.sign_out:
        view["sign_out_shown"] = True
    if page.overlay:
        view["overlay_covers_page"] = True
    return view


def from_model_view(view: dict[str, Any]) -> Page:
    """A page back from its stored model view (a step's result)."""

    def tupled(item: dict[str, Any]) -> dict[str, Any]:
        return {k: tuple(v) if isinstance(v, list) else v for k, v in item.items()}

    return Page(
        url=view.get("url", ""),
        title=view.get("title", ""),
        text=view.get("text", ""),
        fields=tuple(PageField(**tupled(f)) for f in view.get("fields", [])),
        controls=tuple(PageControl(**c) for c in view.get("controls", [])),
        notices=tuple(
            Notice(n.get("kind", ""), n.get("text", "")) for n in view.get("notices", [])
        ),
        login_form=bool(view.get("login_form")),
        code_form=bool(view.get("code_form")),
        payment_form=bool(view.get("payment_form")),
        frames=tuple(Frame(**f) for f in view.get("frames", [])),
        headings=tuple(view.get("headings", [])),
        pages=tuple(OpenPage(**p) for p in view.get("pages", [])),
        sign_out=bool(view.get("sign_out_shown")),
        overlay=bool(view.get("overlay_covers_page")),
    )
