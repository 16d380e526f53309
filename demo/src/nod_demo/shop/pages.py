"""The shop's HTML: plain forms, no JavaScript. Values a visitor submitted are
never written back into a page (except the username, as a site would), but
for the echo page, which a form in `echo` mode sends its visitor to."""

from html import escape
from urllib.parse import quote


def layout(title: str, body: str, *, message: str = "", kind: str = "error") -> str:
    role = "alert" if kind == "error" else "status"
    notice = f'<p class="{kind}" role="{role}">{escape(message)}</p>' if message else ""
    return (
        "<!doctype html><html><head><meta charset='utf-8'>"
        f"<title>{escape(title)} · Demo Shop</title></head><body>"
        '<nav><a href="/">Demo Shop</a> · <a href="/product">Lamp</a> · '
        '<a href="/login">Sign in</a> · <a href="/account">Account</a> · '
        '<a href="/orders">Your orders</a></nav>'
        f"<main><h1>{escape(title)}</h1>{notice}{body}</main></body></html>"
    )


def home() -> str:
    return layout("Welcome", '<p>Sign in or <a href="/product">see our lamp</a>.</p>')


def login(message: str = "") -> str:
    form = (
        '<form id="login" method="post" action="/login">'
        '<label for="username">Username</label>'
        '<input id="username" name="username" type="text" autocomplete="username">'
        '<label for="password">Password</label>'
        '<input id="password" name="password" type="password" autocomplete="current-password">'
        '<button type="submit">Sign in</button></form>'
    )
    return layout("Sign in", form, message=message)


def one_time_code(message: str = "") -> str:
    form = (
        '<form id="otp" method="post" action="/otp">'
        '<label for="code">One-time code from your app</label>'
        '<input id="code" name="code" type="text" inputmode="numeric"'
        ' autocomplete="one-time-code">'
        '<button type="submit">Verify</button></form>'
    )
    return layout("Enter your one-time code", form, message=message)


def pin() -> str:
    """A PIN step whose fields say nothing of being private (no password type,
    no telling name), one of them inside a widget's shadow root (declarative,
    so still no JavaScript)."""
    form = (
        '<form id="pin-form" method="post" action="/pin">'
        '<label for="pin">PIN</label><input id="pin" name="pin" inputmode="numeric">'
        '<div id="widget"><template shadowrootmode="open">'
        '<label for="widget-pin">PIN again</label>'
        '<input id="widget-pin" name="widget_pin" inputmode="numeric">'
        "</template></div></form>"
    )
    return layout("Enter your PIN", form)


def account(username: str) -> str:
    return layout("Your account", f"<p>Signed in as {escape(username)}</p>")


def product() -> str:
    return layout(
        "Desk lamp",
        '<p>A warm desk lamp. <strong>€25.00</strong></p><a href="/checkout">Buy now</a>',
    )


def checkout(message: str = "") -> str:
    form = (
        '<form id="checkout" method="post" action="/checkout">'
        "<p>Desk lamp, total €25.00</p>"
        '<label for="card_number">Card number</label>'
        '<input id="card_number" name="card_number" autocomplete="cc-number" inputmode="numeric">'
        '<label for="expiry">Expiry (MM/YY)</label>'
        '<input id="expiry" name="expiry" autocomplete="cc-exp">'
        '<label for="cvc">Security code</label>'
        '<input id="cvc" name="cvc" autocomplete="cc-csc" inputmode="numeric">'
        '<label for="holder">Name on card</label>'
        '<input id="holder" name="holder" autocomplete="cc-name">'
        '<button type="submit">Pay €25.00</button></form>'
    )
    return layout("Checkout", form, message=message)


def orders(placed: list) -> str:
    """A visitor's orders: reference, total and when, one line each."""
    if not placed:
        return layout("Your orders", "<p>No orders yet.</p>")
    rows = "".join(
        f"<li>{escape(reference)} · {escape(order.total)} · placed"
        f" {order.placed_at:%Y-%m-%d %H:%M:%S} UTC</li>"
        for reference, order in placed
    )
    return layout("Your orders", f"<ul>{rows}</ul>")


def order(reference: str) -> str:
    return layout(
        "Thank you",
        f'<p>Your order reference is <span id="order-ref">{escape(reference)}</span>.</p>',
        message="Payment accepted",
        kind="success",
    )


def echo(query: str, fields: dict[str, str]) -> str:
    """Everything received, shown back every way a careless site might: in
    the title, a notice (as sent, URL-encoded), the text, HTML-escaped
    source, form fields, a link's address (%20-encoded) and its text, and
    a button; the address itself carries the values too."""
    values = list(fields.values())
    sent = "".join(f"<li>{escape(name)} = {escape(value)}</li>" for name, value in fields.items())
    source = "".join(f"<code>{escape(escape(value))}</code> " for value in values)
    kept = "".join(
        f'<input name="sent{n}" type="text" value="{escape(value)}">'
        for n, value in enumerate(values)
    )
    retry = "&".join(f"{quote(name)}={quote(value)}" for name, value in fields.items())
    body = (
        f"<p>You sent:</p><ul>{sent}</ul><p>Source: {source}</p>"
        f'<form method="get" action="/login">{kept}</form>'
        f'<a href="/login?{escape(retry)}">Try again as {escape(" ".join(values))}</a>'
        f'<button type="button">Retry with {escape(values[0] if values else "")}</button>'
    )
    return layout(
        f"We got {', '.join(values)}", body, message=f"Sorry, we could not process: {query}"
    )
