"""The agnostic model's shopping: a task like "Buy <product url> with my
saved card, ship to <name>, <street>, <city> <postcode>" on a shop it has
never seen. Like a real model it knows only what the tasks service sent:
the person's saved logins and cards (by id and masked), and each page as
ReadPage gave it; it picks fields by their labels, names, types and
options, and controls by their texts and roles. Nothing here names a shop.

It signs in (when the shop shows a sign-in link), adds the product to the
basket, checks out, types the address from the task text field by field,
asks the person's yes for the total the page shows, asks the person for
the card's security code, pays with the saved card and, when the shop
shows a review page (pay says paid: not_yet), places the order with
confirm_payment. `insist=True` asks to place a declined order again."""

import re
from dataclasses import dataclass
from typing import Any

Step = tuple[str, dict[str, Any]]

SIGN_IN_LINK = re.compile(r"\b(log ?in|sign ?in)\b", re.I)
ADD_TO_BASKET = re.compile(r"\badd to (basket|cart|bag)\b", re.I)
CHECKOUT = re.compile(r"\bcheck ?out\b", re.I)
BASKET = re.compile(r"\b(view )?(basket|cart|bag)\b", re.I)
PLACE_ORDER = re.compile(
    r"\b(place|confirm|complete|submit) (the |my |your )?order\b|\b(buy|pay) now\b", re.I
)
CARD_LINE = re.compile(r"^- (\S+): (.*) \((\S+ \d{4}), (\d{2}/\d{2,4})\)$", re.M)
AMOUNT = re.compile(r"([£$€])\s?(\d+(?:[.,]\d{2}))")
CURRENCIES = {"£": "GBP", "$": "USD", "€": "EUR"}
POSTCODE = re.compile(r"([A-Z]{1,2}\d[A-Z\d]? ?\d[A-Z]{2}|\d{4,5})$", re.I)
# What each part of an address is called in a form's labels or names.
ADDRESS_FIELDS = {
    "first_name": re.compile(r"first.?name|given.?name|forename", re.I),
    "last_name": re.compile(r"last.?name|surname|family.?name", re.I),
    "street": re.compile(r"first line|line.?1\b|street|address.?line.?1", re.I),
    "city": re.compile(r"\bcity\b|\btown\b", re.I),
    "postcode": re.compile(r"post.?code|post/zip|zip", re.I),
}
MONTHS = {"01", "1", "jan", "january", "12", "dec", "december"}
SECURITY_HINT = re.compile(r"cvv|ccv|cvc|security|verification", re.I)
EXPIRY_HINT = re.compile(r"expir|valid.?to|\bexp\b", re.I)
NUMBER_HINT = re.compile(r"card.?number|^number$", re.I)


@dataclass(frozen=True)
class Card:
    id: str
    label: str
    number: str
    expiry: str


def cards_of(system_prompt: str) -> list[Card]:
    section = system_prompt.split("saved cards", 1)[-1].split("connected apps", 1)[0]
    return [Card(*m.groups()) for m in CARD_LINE.finditer(section)]


def address_of(task: str) -> dict[str, str]:
    """ "ship to Grace Hopper, 1 Main Street, London SW1A 1AA" -> its parts."""
    match = re.search(r"ship to (.+)$", task, re.I)
    if match is None:
        return {}
    name, street, place = [part.strip() for part in match.group(1).rstrip(".").split(",")][:3]
    first, _, last = name.partition(" ")
    postcode = POSTCODE.search(place)
    code = postcode.group(1) if postcode else ""
    city = place[: len(place) - len(code)].strip()
    return {
        "first_name": first,
        "last_name": last,
        "street": street,
        "city": city,
        "postcode": code,
    }


def hint(item: dict[str, Any]) -> str:
    return " ".join(str(item.get(k, "")) for k in ("label", "name", "type"))


def control(page: dict[str, Any], words: re.Pattern[str], kinds=("submit", "button", "link")):
    return next(
        (
            c
            for c in page.get("controls", [])
            if c.get("kind") in kinds and words.search(c.get("text", "")) and not c.get("disabled")
        ),
        None,
    )


def amount_of(pages: list[dict[str, Any]]) -> tuple[int, str] | None:
    """The total the pages showed (the latest amount after the word "total"),
    else the product's price (the first amount of the first page)."""
    for page in reversed(pages):
        said = page.get("text", "")
        at = said.lower().rfind("total")
        if at >= 0 and (found := AMOUNT.search(said, at)) is not None:
            return _minor(found)
    for page in pages:
        if (found := AMOUNT.search(page.get("text", ""))) is not None:
            return _minor(found)
    return None


def _minor(found: re.Match[str]) -> tuple[int, str]:
    symbol, number = found.groups()
    return round(float(number.replace(",", ".")) * 100), CURRENCIES[symbol]


def card_fields(page: dict[str, Any]) -> dict[str, str]:
    """Value field -> ref, from what the fields say they take."""
    placed: dict[str, str] = {}
    expiry_selects: list[str] = []
    for f in page.get("fields", []):
        options = [str(o).strip().lower() for o in f.get("options", [])]
        if f.get("private_kind") == "card_number" or NUMBER_HINT.search(str(f.get("name", ""))):
            placed.setdefault("number", f["ref"])
        elif f.get("private_kind") == "card_security_code" or SECURITY_HINT.search(hint(f)):
            placed.setdefault("security_code", f["ref"])
        elif options and EXPIRY_HINT.search(hint(f)) and len(MONTHS & set(options)) >= 2:
            # (a card's start date asks for a month and a year too)
            placed.setdefault("expiry_month", f["ref"])
        elif EXPIRY_HINT.search(hint(f)) and any(re.fullmatch(r"20\d{2}", o) for o in options):
            placed.setdefault("expiry_year", f["ref"])
        elif f.get("type") == "select" and EXPIRY_HINT.search(hint(f)):
            expiry_selects.append(f["ref"])
        elif f.get("private_kind") == "card_expiry" or EXPIRY_HINT.search(hint(f)):
            placed.setdefault("expiry", f["ref"])
    if len(expiry_selects) == 2 and not {"expiry_month", "expiry_year"} & set(placed):
        # Options not shown: two expiry selects are month then year, as forms write them.
        placed["expiry_month"], placed["expiry_year"] = expiry_selects
    return placed


def address_fields(page: dict[str, Any]) -> dict[str, dict[str, Any]]:
    found: dict[str, dict[str, Any]] = {}
    for f in page.get("fields", []):
        if f.get("type") in ("hidden", "checkbox", "radio") or f.get("masked"):
            continue
        for part, words in ADDRESS_FIELDS.items():
            if part not in found and words.search(hint(f)):
                found[part] = f
                break
    return found if {"first_name", "postcode"} <= set(found) else {}


class Shopper:
    def __init__(self, *, insist: bool = False, place_order: bool = True) -> None:
        self.insist = insist
        # False: it finishes on the review page without placing the order.
        self.place_order = place_order

    def next_step(self, seen, sign_in) -> Step | None:
        """`sign_in(page)`: the agnostic model's sign-in step on a sign-in page."""
        last_name, last_args, last = seen.calls[-1]
        product_url = re.search(r"https?://\S+", seen.task).group(0)
        if last_name == "confirm_payment":
            if last.get("outcome") == "not_run":
                return "finish", {"message": f"Not placed again: {last.get('why')}"}
            if last.get("paid") == "declined" and self.insist:
                again = {**last_args, "new_action_reason": "the person asked to try once more"}
                return "confirm_payment", again
            return "finish", {"message": f"Order placed; payment {last.get('paid')}."}
        if last.get("outcome") in ("not_run", "failed", "uncertain"):
            return "finish", {"message": f"I stopped: {last.get('why', last['outcome'])}"}
        if last_name == "pay":
            if last.get("paid") == "not_yet" and not self.place_order:
                return "finish", {"message": "The order is ready for you to review and place."}
            if last.get("paid") == "not_yet":
                place = control(seen.page, PLACE_ORDER, ("submit", "button"))
                if place is None:
                    return "finish", {"message": "The shop shows no way to place the order."}
                args = {"payment_id": last["payment_id"], "target": place["ref"]}
                return "confirm_payment", args
            return "finish", {"message": f"Payment {last.get('paid')}."}
        page = seen.page
        if last.get("state") == "confirmed" or last_name == "ask_private_form":
            return self._pay(seen, page)
        signed_in = any((r.get("page") or {}).get("sign_out_shown") for _, _, r in seen.calls)
        if not signed_in and any(f.get("type") == "password" for f in page.get("fields", [])):
            return sign_in(page)
        if not signed_in and (link := control(page, SIGN_IN_LINK, ("link",))) is not None:
            return "click", {"target": link["ref"]}
        if page.get("payment_form") or "number" in card_fields(page):
            return self._request_payment(seen, page)
        if fields := address_fields(page):
            return self._address(seen, page, fields)
        added = any(
            name == "click" and ADD_TO_BASKET.search(self._text_of(seen, args.get("target", "")))
            for name, args, _ in seen.calls
        )
        if not added:
            if page.get("url") != product_url:
                reason = "back to the product once signed in"
                return "navigate", {"url": product_url, "new_action_reason": reason}
            if (add := control(page, ADD_TO_BASKET, ("submit", "button"))) is not None:
                return "click", {"target": add["ref"]}
            return "finish", {"message": "The product page shows no way to add it."}
        onward = control(page, CHECKOUT) or control(page, BASKET, ("link",))
        if onward is not None and last_args.get("target") != onward["ref"]:
            return "click", {"target": onward["ref"]}
        return "finish", {"message": "I found no way to the checkout."}

    @staticmethod
    def _text_of(seen, ref: str) -> str:
        """A control's text as the page before the click showed it."""
        for _, _, result in seen.calls:
            for c in (result.get("page") or {}).get("controls", []):
                if c.get("ref") == ref and ADD_TO_BASKET.search(c.get("text", "")):
                    return c["text"]
        return ""

    def _address(self, seen, page, fields) -> Step:
        wanted = address_of(seen.task)
        for part, f in fields.items():
            if wanted.get(part) and f.get("value") != wanted[part]:
                return "type_text", {"target": f["ref"], "text": wanted[part]}
        submit = control(page, re.compile(r"continue|next|ship|deliver", re.I), ("submit",))
        if submit is None:
            return "finish", {"message": "The address form has no way on."}
        return "click", {"target": submit["ref"]}

    def _request_payment(self, seen, page) -> Step:
        # The card the task names by its label, else the first one saved.
        cards = sorted(
            cards_of(seen.system), key=lambda c: c.label.lower() not in seen.task.lower()
        )
        total = amount_of([r["page"] for _, _, r in seen.calls if r.get("page")])
        if not cards or total is None:
            return "finish", {"message": "I found no saved card or no total to pay."}
        amount, currency = total
        return "request_payment", {
            "merchant_origin": re.match(r"https?://[^/]+", page["url"]).group(0),
            "amount_minor": amount,
            "currency": currency,
            "description": page.get("title") or "Order",
            "card_id": cards[0].id,
        }

    def _pay(self, seen, page) -> Step:
        requested = next(r for n, _, r in reversed(seen.calls) if n == "request_payment")
        fields = card_fields(page)
        form = next((r for n, _, r in reversed(seen.calls) if n == "ask_private_form"), None)
        if "security_code" in fields and form is None:
            return "ask_private_form", {
                "kind": "security_code",
                "reason": "The shop asks for your card's security code.",
            }
        args: dict[str, Any] = {
            "payment_id": requested["payment_id"],
            "fields": fields,
            "submit": control(page, re.compile(r"continue|pay|next|review", re.I), ("submit",))[
                "ref"
            ],
        }
        if form is not None:
            args["security_code_form_id"] = form["form_id"]
        return "pay", args
