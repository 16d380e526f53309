"""A page as the model sees it: what the browser service read (private
fields already masked, card numbers and entered values masked), trimmed to
what helps decide the next step."""

from typing import Any

MAX_TEXT = 3000


def for_model(page: dict[str, Any]) -> dict[str, Any]:
    text = page.get("text", "")
    return {
        "url": page.get("url", ""),
        "title": page.get("title", ""),
        "text": text[:MAX_TEXT] + ("…" if len(text) > MAX_TEXT else ""),
        "fields": [
            {
                k: f[k]
                for k in ("ref", "name", "type", "label", "value", "masked", "filled")
                if f.get(k) not in (None, "", False)
            }
            for f in page.get("fields", [])
        ],
        "controls": [
            {k: c[k] for k in ("ref", "kind", "text", "href") if c.get(k)}
            for c in page.get("controls", [])
        ],
        "notices": page.get("notices", []),
        "login_form": bool(page.get("loginFormPresent")),
        "code_form": bool(page.get("codeFormPresent")),
        "payment_form": bool(page.get("paymentFormPresent")),
    }
