"""A page as the browser service read it (private fields and values shown
back already masked), and the part of it the model is shown."""

from dataclasses import dataclass
from typing import Any

MAX_TEXT = 3000


@dataclass(frozen=True)
class PageField:
    ref: str
    name: str = ""
    type: str = ""
    label: str = ""
    value: str = ""
    masked: bool = False
    filled: bool = False


@dataclass(frozen=True)
class PageControl:
    ref: str
    kind: str = ""
    text: str = ""
    href: str = ""


@dataclass(frozen=True)
class Notice:
    # "error", "success" or "info"
    kind: str
    text: str


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


def _shown(item: Any, names: tuple[str, ...]) -> dict[str, Any]:
    return {name: getattr(item, name) for name in names if getattr(item, name) not in ("", False)}


def for_model(page: Page) -> dict[str, Any]:
    """What the model is shown of a page: trimmed to what helps decide the
    next step, every element named by the ref it can act on."""
    text = page.text
    return {
        "url": page.url,
        "title": page.title,
        "text": text[:MAX_TEXT] + ("…" if len(text) > MAX_TEXT else ""),
        "fields": [
            _shown(f, ("ref", "name", "type", "label", "value", "masked", "filled"))
            for f in page.fields
        ],
        "controls": [_shown(c, ("ref", "kind", "text", "href")) for c in page.controls],
        "notices": [{"kind": n.kind, "text": n.text} for n in page.notices],
        "login_form": page.login_form,
        "code_form": page.code_form,
        "payment_form": page.payment_form,
    }


def from_model_view(view: dict[str, Any]) -> Page:
    """A page back from its stored model view (a step's result)."""
    return Page(
        url=view.get("url", ""),
        title=view.get("title", ""),
        text=view.get("text", ""),
        fields=tuple(PageField(**f) for f in view.get("fields", [])),
        controls=tuple(PageControl(**c) for c in view.get("controls", [])),
        notices=tuple(
            Notice(n.get("kind", ""), n.get("text", "")) for n in view.get("notices", [])
        ),
        login_form=bool(view.get("login_form")),
        code_form=bool(view.get("code_form")),
        payment_form=bool(view.get("payment_form")),
    )
