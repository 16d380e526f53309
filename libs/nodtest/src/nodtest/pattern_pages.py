"""The HTML (and the little JavaScript) of nodtest.patterns: each page is one
way real sites build a step that no installable application here shows.
A value a visitor submitted is never written back into a page."""

from html import escape

CARD_RESULT = "nod-card-result"
BANK_RESULT = "nod-3ds-result"


def layout(title: str, body: str, *, message: str = "", kind: str = "error") -> str:
    role = "alert" if kind == "error" else "status"
    notice = f'<p class="{kind}" role="{role}">{escape(message)}</p>' if message else ""
    return (
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>"
        f"<title>{escape(title)} · Patterns</title></head><body>"
        f"<main><h1>{escape(title)}</h1>{notice}{body}</main></body></html>"
    )


def index() -> str:
    links = {
        "/checkout": "Checkout with hosted card fields",
        "/code": "Six-box one-time code",
        "/banner-login": "Sign in behind a cookie banner",
        "/shadow-login": "Sign in inside a shadow root",
        "/pay-3ds": "Pay, then confirm with your bank",
        "/two-step": "Two-step sign-in",
        "/floating-login": "Sign in with floating labels",
        "/styled-code": "One-time code in styled boxes",
        "/drawn-code": "One-time code typed into one transparent input over drawn boxes",
    }
    items = "".join(f'<li><a href="{href}">{text}</a></li>' for href, text in links.items())
    return layout("Patterns", f"<ul>{items}</ul>")


def signed_in(username: str) -> str:
    return layout(
        "Your account",
        f'<p>Signed in as <span id="username">{escape(username)}</span></p>'
        '<form method="post" action="/sign-out"><button type="submit">Sign out</button></form>',
    )


# --- hosted card fields: a page on one origin, the card inputs on another ---


def checkout(card_origin: str, shop_origin: str) -> str:
    """The shop's page only frames the card host's form and waits for its
    verdict by postMessage, as pages with hosted card fields do."""
    frame = (
        f'<iframe id="card-frame" title="Secure card payment" width="420" height="260"'
        f' src="{escape(card_origin)}/fields?parent={escape(shop_origin)}"></iframe>'
    )
    script = (
        "<script>window.addEventListener('message', (event) => {"
        f"  if (event.origin !== {card_origin!r} || event.data?.type !== {CARD_RESULT!r}) return;"
        "  const result = document.getElementById('payment-result');"
        "  result.dataset.state = event.data.status;"
        "  result.textContent = event.data.status === 'paid'"
        "    ? 'Payment accepted. Thank you for your order.' : 'Your card was declined.';"
        "});</script>"
    )
    return layout(
        "Checkout",
        "<p>Desk lamp, total €25.00</p>"
        + frame
        + '<p id="payment-result" role="status" data-state="waiting"></p>'
        + script,
    )


def card_fields(parent: str) -> str:
    """Served by the card host: its own form, posted to its own origin."""
    return (
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>"
        "<title>Card details</title></head><body>"
        '<form id="card-form" method="post" action="/fields/submit">'
        f'<input type="hidden" name="parent" value="{escape(parent)}">'
        '<label for="cardnumber">Card number</label>'
        '<input id="cardnumber" name="cardnumber" autocomplete="cc-number"'
        ' inputmode="numeric" placeholder="1234 1234 1234 1234">'
        '<label for="exp-date">Expiry</label>'
        '<input id="exp-date" name="exp-date" autocomplete="cc-exp" placeholder="MM / YY">'
        '<label for="cvc">CVC</label>'
        '<input id="cvc" name="cvc" autocomplete="cc-csc" inputmode="numeric" placeholder="CVC">'
        '<button type="submit">Pay €25.00</button></form></body></html>'
    )


# The card host tells the page its verdict a second after its own answer
# has loaded (it confirms with its processor first), well after the network
# has gone quiet: a payment's outcome must be read off the page once the
# verdict shows, not the moment the submission settles.
VERDICT_DELAY_MS = 1000


def card_verdict(status: str, parent: str) -> str:
    """The card host's answer, inside the frame: it tells the parent page."""
    message = f"{{type: {CARD_RESULT!r}, status: {status!r}}}"
    return (
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>"
        f"<title>Card {escape(status)}</title></head><body><p>Processing complete.</p>"
        f"<script>setTimeout(() => parent.postMessage({message}, {parent!r}),"
        f" {VERDICT_DELAY_MS});</script></body></html>"
    )


# --- a one-time code over six boxes ---------------------------------------

SIX_BOXES_SCRIPT = """<script>
const boxes = [...document.querySelectorAll('input.digit')];
boxes.forEach((box, i) => {
  box.addEventListener('input', () => {
    box.value = box.value.replace(/\\D/g, '').slice(-1);
    if (box.value && i < boxes.length - 1) boxes[i + 1].focus();
  });
  box.addEventListener('keydown', (event) => {
    if (event.key === 'Backspace' && !box.value && i > 0) boxes[i - 1].focus();
  });
  box.addEventListener('paste', (event) => {
    const digits = event.clipboardData.getData('text').replace(/\\D/g, '');
    if (!digits) return;
    event.preventDefault();
    boxes.forEach((b, j) => { b.value = digits[j] ?? ''; });
    boxes[Math.min(digits.length, boxes.length) - 1].focus();
  });
});
document.getElementById('code-form').addEventListener('submit', () => {
  document.getElementById('code').value = boxes.map((b) => b.value).join('');
});
</script>"""


def six_box_code(message: str = "") -> str:
    boxes = "".join(
        f'<input class="digit" type="text" inputmode="numeric" maxlength="1"'
        f' aria-label="Digit {n} of 6"'
        + (' autocomplete="one-time-code" autofocus' if n == 1 else ' autocomplete="off"')
        + ">"
        for n in range(1, 7)
    )
    form = (
        '<form id="code-form" method="post" action="/code">'
        '<p id="code-help">Enter the 6-digit code from your authenticator app.</p>'
        f'<div role="group" aria-describedby="code-help">{boxes}</div>'
        '<input type="hidden" id="code" name="code">'
        '<button type="submit">Verify</button></form>'
    )
    return layout("Enter your code", form + SIX_BOXES_SCRIPT, message=message)


# --- a sign-in form covered by a cookie banner ----------------------------


def banner_login(message: str = "") -> str:
    banner = (
        '<div id="consent" role="dialog" aria-modal="true" aria-labelledby="consent-title"'
        ' style="position:fixed;inset:0;z-index:1000;background:rgba(0,0,0,.6)">'
        '<div style="background:#fff;margin:20vh auto;max-width:28em;padding:1em">'
        '<h2 id="consent-title">We value your privacy</h2>'
        "<p>We use cookies to run this site.</p>"
        '<button type="button" data-consent="all">Accept all</button> '
        '<button type="button" data-consent="necessary">Reject all</button></div></div>'
        "<script>"
        "if (document.cookie.includes('consent=')) document.getElementById('consent').remove();"
        "document.querySelectorAll('[data-consent]').forEach((b) => b.addEventListener("
        "'click', () => { document.cookie = 'consent=' + b.dataset.consent + '; path=/';"
        " document.getElementById('consent').remove(); }));"
        "</script>"
    )
    form = (
        '<form id="login" method="post" action="/banner-login">'
        '<label for="username">Username</label>'
        '<input id="username" name="username" autocomplete="username">'
        '<label for="password">Password</label>'
        '<input id="password" name="password" type="password" autocomplete="current-password">'
        '<button type="submit">Sign in</button></form>'
    )
    return layout("Sign in", form + banner, message=message)


# --- a sign-in inside a custom element's open shadow root ----------------

SHADOW_SCRIPT = """<script>
customElements.define('nod-sign-in', class extends HTMLElement {
  connectedCallback() {
    const root = this.attachShadow({mode: 'open'});
    root.innerHTML = `
      <label for="username">Username</label>
      <input id="username" name="username" autocomplete="username">
      <label for="password">Password</label>
      <input id="password" name="password" type="password" autocomplete="current-password">
      <div id="submit" role="button" tabindex="0">Sign in</div>
      <p id="error" role="alert"></p>`;
    const submit = async () => {
      const body = new URLSearchParams({
        username: root.getElementById('username').value,
        password: root.getElementById('password').value,
      });
      const reply = await fetch('/shadow-login', {method: 'POST', body});
      const answer = await reply.json();
      if (answer.next) location.assign(answer.next);
      else root.getElementById('error').textContent = answer.error;
    };
    const button = root.getElementById('submit');
    button.addEventListener('click', submit);
    button.addEventListener('keydown', (event) => {
      if (event.key === 'Enter' || event.key === ' ') { event.preventDefault(); submit(); }
    });
  }
});
</script>"""


def shadow_login() -> str:
    return layout("Sign in", "<nod-sign-in></nod-sign-in>" + SHADOW_SCRIPT)


# --- a payment confirmed in a popup (3-D Secure) --------------------------


def pay_with_bank(transaction: str) -> str:
    """A card form whose Pay sends the card to the bank in a popup (the
    form's target), as 3-D Secure checkouts do; the page then asks the shop
    for the verdict until the bank has one, however the person answered
    (the popup, or the bank's app), and shows it in place of the form."""
    script = (
        "<script>"
        "const form = document.getElementById('card-form');"
        "const result = document.getElementById('payment-result');"
        "const show = (status) => {"
        "  if (result.dataset.state !== 'waiting') return;"
        "  result.dataset.state = status;"
        "  result.textContent = status === 'confirmed'"
        "    ? 'Payment confirmed. Thank you for your order.' : 'Payment cancelled.';"
        "  form.remove();"
        "};"
        "form.addEventListener('submit', () => {"
        "  window.open('', 'bank', 'width=420,height=520');"
        "  result.textContent = 'Waiting for your bank…';"
        "  const ask = async () => {"
        f"    const reply = await fetch('/3ds/status?txn={transaction}');"
        "    const answer = await reply.json();"
        "    if (['confirmed', 'cancelled'].includes(answer.status)) show(answer.status);"
        "    else setTimeout(ask, 500);"
        "  };"
        "  setTimeout(ask, 500);"
        "});"
        "window.addEventListener('message', (event) => {"
        f"  if (event.origin !== location.origin || event.data?.type !== {BANK_RESULT!r}) return;"
        "  show(event.data.status);"
        "});</script>"
    )
    form = (
        '<form id="card-form" method="post" action="/pay-3ds" target="bank">'
        f'<input type="hidden" name="txn" value="{escape(transaction)}">'
        '<label for="cardnumber">Card number</label>'
        '<input id="cardnumber" name="cardnumber" autocomplete="cc-number" inputmode="numeric">'
        '<label for="exp-date">Expiry</label>'
        '<input id="exp-date" name="exp-date" autocomplete="cc-exp" placeholder="MM / YY">'
        '<label for="cvc">CVC</label>'
        '<input id="cvc" name="cvc" autocomplete="cc-csc" inputmode="numeric">'
        '<button type="submit" id="pay">Pay €25.00</button></form>'
    )
    return layout(
        "Checkout",
        "<p>Desk lamp, total €25.00</p>"
        + form
        + '<p id="payment-result" role="status" data-state="waiting"></p>'
        + script,
    )


def bank_challenge(transaction: str) -> str:
    form = (
        '<form method="post" action="/3ds/challenge">'
        f'<input type="hidden" name="txn" value="{escape(transaction)}">'
        "<p>Your bank asks you to confirm a payment of €25.00 to Patterns Shop.</p>"
        '<button type="submit" name="action" value="confirm">Confirm</button> '
        '<button type="submit" name="action" value="cancel">Cancel</button></form>'
    )
    return layout("Confirm with your bank", form)


def bank_verdict(status: str) -> str:
    return (
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>"
        f"<title>Payment {escape(status)}</title></head><body><p>You can close this window.</p>"
        f"<script>window.opener?.postMessage({{type: {BANK_RESULT!r}, status: {status!r}}},"
        " location.origin); window.close();</script></body></html>"
    )


# --- a sign-in in two steps: the username, then the password --------------


def two_step_username(message: str = "") -> str:
    form = (
        '<form id="identifier" method="post" action="/two-step">'
        '<label for="username">Username</label>'
        '<input id="username" name="username" autocomplete="username" autofocus>'
        '<button type="submit">Next</button></form>'
    )
    return layout("Sign in", form, message=message)


def two_step_password(username: str, message: str = "") -> str:
    form = (
        '<form id="password-form" method="post" action="/two-step/password">'
        f"<p>Signing in as <strong>{escape(username)}</strong>"
        ' · <a href="/two-step">Not you?</a></p>'
        f'<input type="hidden" name="username" autocomplete="username"'
        f' value="{escape(username)}">'
        '<label for="password">Password</label>'
        '<input id="password" name="password" type="password"'
        ' autocomplete="current-password" autofocus>'
        '<button type="submit">Sign in</button></form>'
    )
    return layout("Enter your password", form, message=message)


# --- floating labels laid over their fields ------------------------------

FLOATING_STYLE = """<style>
.float { position: relative; margin: 1.5em 0; width: 20em; }
.float input { width: 100%; padding: 1.4em .6em .4em; font-size: 1rem; box-sizing: border-box; }
.float .label { position: absolute; inset: 0; padding: .9em .7em; color: #555; }
.float input:focus + .label, .float input:not(:placeholder-shown) + .label {
  inset: 0 0 auto 0; padding: .2em .7em; font-size: .75em; }
.float span.label { pointer-events: none; }
</style>"""


def floating_login(message: str = "") -> str:
    """Each label lies over the whole of its field until the field is
    filled or focused, as Material and Bootstrap draw them: a <label for>
    (what the hit test finds over the username) and a span the hit test
    looks through (pointer-events: none) over the password, which names it
    by aria-labelledby."""
    form = (
        '<form id="login" method="post" action="/floating-login">'
        '<div class="float"><input id="username" name="username" autocomplete="username"'
        ' placeholder=" "><label class="label" for="username">Email or username</label></div>'
        '<div class="float"><input id="password" name="password" type="password"'
        ' autocomplete="current-password" placeholder=" " aria-labelledby="password-label">'
        '<span class="label" id="password-label">Password</span></div>'
        '<button type="submit">Sign in</button></form>'
    )
    return layout("Sign in", FLOATING_STYLE + form, message=message)


# --- one-time codes drawn as boxes -----------------------------------------

STYLED_BOXES_STYLE = """<style>
.boxes { display: flex; gap: .5em; }
.box { position: relative; }
.box input { width: 2.2em; height: 2.8em; font-size: 1.4rem; text-align: center;
  border: 0; border-bottom: 3px solid #333; background: transparent; caret-color: #06c; }
.box .hint { position: absolute; inset: auto 0 .3em; text-align: center; color: #bbb;
  pointer-events: none; }
</style>"""


def styled_code(message: str = "") -> str:
    """Six one-character boxes drawn with CSS, each with a hint drawn over it
    that the hit test looks through."""
    boxes = "".join(
        f'<span class="box"><input class="digit" type="tel" inputmode="numeric" maxlength="1"'
        f' aria-label="Digit {n} of 6"'
        + (' autocomplete="one-time-code"' if n == 1 else ' autocomplete="off"')
        + '><span class="hint" aria-hidden="true">•</span></span>'
        for n in range(1, 7)
    )
    form = (
        '<form id="code-form" method="post" action="/styled-code">'
        '<p id="code-help">Enter the 6-digit code we sent you.</p>'
        f'<div class="boxes" role="group" aria-describedby="code-help">{boxes}</div>'
        '<input type="hidden" id="code" name="code">'
        '<button type="submit">Verify</button></form>'
    )
    return layout("Enter your code", STYLED_BOXES_STYLE + form + SIX_BOXES_SCRIPT, message=message)


DRAWN_CODE_STYLE = """<style>
.otp { position: relative; display: inline-flex; gap: .5em; }
.otp .slot { width: 2.2em; height: 2.8em; border: 2px solid #333; border-radius: .3em;
  display: flex; align-items: center; justify-content: center; font-size: 1.4rem; }
.otp input { position: absolute; inset: 0; width: 100%; height: 100%; opacity: 0;
  border: 0; background: transparent; color: transparent; caret-color: transparent;
  font-family: monospace; letter-spacing: -.5em; pointer-events: all; }
</style>"""
DRAWN_CODE_SCRIPT = """<script>
const input = document.getElementById('code');
const slots = [...document.querySelectorAll('.otp .slot')];
input.addEventListener('input', () => {
  input.value = input.value.replace(/\\D/g, '').slice(0, slots.length);
  slots.forEach((slot, i) => { slot.textContent = input.value[i] ?? ''; });
});
</script>"""


def drawn_code(message: str = "") -> str:
    """As the input-otp library builds it: one transparent input laid over
    six drawn boxes, which show what it holds."""
    slots = '<div class="slot" aria-hidden="true"></div>' * 6
    form = (
        '<form id="code-form" method="post" action="/drawn-code">'
        '<label for="code">Enter the 6-digit code from your authenticator app</label>'
        f'<div class="otp">{slots}'
        '<input id="code" name="code" autocomplete="one-time-code" inputmode="numeric"'
        ' maxlength="6" pattern="\\d{6}"></div>'
        '<button type="submit">Verify</button></form>'
    )
    return layout("Enter your code", DRAWN_CODE_STYLE + form + DRAWN_CODE_SCRIPT, message=message)
