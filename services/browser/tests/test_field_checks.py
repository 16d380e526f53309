"""The field rules as the page evaluates them (field_check.js), one small
page each, in real Chromium: the fields each value may go into, the ways a
page hides a field from a person, and what real sites do that must still
pass (floating labels over a field, code boxes, one transparent input over
drawn boxes, a field below the fold, in a shadow root or a card frame)."""

import pytest
from aiohttp import web

from nod_browser.adapters.field_checks import FieldChecks, FieldState, Look
from nod_browser.domain.field_rules import (
    FIELD_COVERED,
    FIELD_DISABLED,
    FIELD_GONE,
    FIELD_INVISIBLE,
    FIELD_LABELLED_OTHERWISE,
    FIELD_NOT_SHOWN,
    FIELD_OFF_SCREEN,
    FIELD_TRANSPARENT,
    FIELD_ZERO_SIZE,
    WRONG_FIELD_KIND,
)

from .hosts import ELSEWHERE_HOST, SITE_HOST, serve_on

OK = ""
SR_ONLY = (
    "position:absolute;width:1px;height:1px;padding:0;border:0;overflow:hidden;clip:rect(0 0 0 0)"
)
OVER = "position:absolute;inset:0;background:#fff"
COVER = (
    f'<div style="position:relative"><input id="f" type="password"><div style="{OVER}"></div></div>'
)
DRAWN = (
    '<div style="position:relative;display:inline-flex;gap:4px">'
    + '<div style="width:30px;height:40px;border:1px solid"></div>' * 6
    + '<input id="f" autocomplete="one-time-code" inputmode="numeric" maxlength="6"'
    ' style="position:absolute;inset:0;width:100%;height:100%;opacity:0{extra}">{over}</div>'
)
BOXES = "".join(
    f'<input class="digit" maxlength="1" inputmode="numeric" aria-label="Digit {n}"'
    ' style="width:30px">'
    for n in range(1, 7)
)
MONTHS = "".join(f"<option>{m:02d}</option>" for m in range(1, 13))
SHADOW = """<div id="host"></div><script>
document.getElementById('host').attachShadow({mode: 'open'}).innerHTML =
  '<label for="f">Password</label><input id="f" type="password">';
</script>"""
IN_FRAME = '<label for="f">Password</label><input id="f" type="password">'

# name: (the page's body, the value field, the rule field #f breaks or OK)
CASES = {
    # --- the fields each value may go into ---
    "password": (
        '<label for="f">Password</label><input id="f" type="password">',
        "password",
        OK,
    ),
    "password in a search box": (
        '<input id="f" name="q" placeholder="Search">',
        "password",
        WRONG_FIELD_KIND,
    ),
    "password in a text field labelled Password": (
        '<label for="f">Password</label><input id="f">',
        "password",
        WRONG_FIELD_KIND,
    ),
    "password in a password field labelled Username": (
        '<label for="f">Username</label><input id="f" type="password">',
        "password",
        FIELD_LABELLED_OTHERWISE,
    ),
    "password in a password field for a username": (
        '<input id="f" type="password" autocomplete="username">',
        "password",
        FIELD_LABELLED_OTHERWISE,
    ),
    "password labelled both ways": (
        '<label for="f">Email password</label><input id="f" type="password">',
        "password",
        OK,
    ),
    "password in a card's security code": (
        '<input id="f" type="password" autocomplete="cc-csc">',
        "password",
        WRONG_FIELD_KIND,
    ),
    "password in a disabled field": (
        '<input id="f" type="password" disabled>',
        "password",
        FIELD_DISABLED,
    ),
    "password in a read-only field": (
        '<input id="f" type="password" readonly>',
        "password",
        FIELD_DISABLED,
    ),
    "username in an email field": (
        '<input id="f" type="email">',
        "username",
        OK,
    ),
    "username in a field labelled Password": (
        '<label for="f">Password</label><input id="f">',
        "username",
        FIELD_LABELLED_OTHERWISE,
    ),
    "username in a password field": (
        '<input id="f" type="password">',
        "username",
        WRONG_FIELD_KIND,
    ),
    "username in a card number field": (
        '<input id="f" autocomplete="cc-number">',
        "username",
        WRONG_FIELD_KIND,
    ),
    "card number": (
        '<label for="f">Card number</label><input id="f">',
        "number",
        OK,
    ),
    "card number in a payment form": (
        '<form><input name="cvc"><input id="f" name="number"></form>',
        "number",
        OK,
    ),
    "card number in a promo code field": (
        '<label for="f">Promo code</label><input id="f">',
        "number",
        WRONG_FIELD_KIND,
    ),
    "security code as a password field": (
        '<input id="f" type="password" aria-label="CVC">',
        "security_code",
        OK,
    ),
    "security code in a search box": (
        '<input id="f" name="q">',
        "security_code",
        WRONG_FIELD_KIND,
    ),
    "expiry": (
        '<input id="f" placeholder="MM / YY">',
        "expiry",
        OK,
    ),
    "expiry month in a styled select's hidden native one": (
        f'<select id="f" name="month" style="{SR_ONLY}">{MONTHS}</select>',
        "expiry_month",
        OK,
    ),
    "one-time code": (
        '<input id="f" inputmode="numeric">',
        "code",
        OK,
    ),
    "one-time code in a search box": (
        '<input id="f" type="search" name="q">',
        "code",
        WRONG_FIELD_KIND,
    ),
    "one-time code in a card's security code": (
        '<input id="f" autocomplete="cc-csc" inputmode="numeric">',
        "code",
        WRONG_FIELD_KIND,
    ),
    "holder name": (
        '<input id="f" autocomplete="cc-name">',
        "holder_name",
        OK,
    ),
    # --- hidden from a person ---
    "display:none": (
        '<input id="f" type="password" style="display:none">',
        "password",
        FIELD_NOT_SHOWN,
    ),
    "hidden attribute": (
        '<input id="f" type="password" hidden>',
        "password",
        FIELD_NOT_SHOWN,
    ),
    "in a display:none box": (
        '<div style="display:none"><input id="f" type="password"></div>',
        "password",
        FIELD_NOT_SHOWN,
    ),
    "visibility:hidden": (
        '<input id="f" type="password" style="visibility:hidden">',
        "password",
        FIELD_INVISIBLE,
    ),
    "visually hidden, 1 px": (
        f'<input id="f" type="password" style="{SR_ONLY}">',
        "password",
        FIELD_ZERO_SIZE,
    ),
    "zero size": (
        '<input id="f" type="password" style="width:0;height:0;padding:0;border:0">',
        "password",
        FIELD_ZERO_SIZE,
    ),
    "off the page to the left": (
        '<input id="f" type="password" style="position:absolute;left:-9999px">',
        "password",
        FIELD_OFF_SCREEN,
    ),
    "off the page above": (
        '<input id="f" type="password" style="position:absolute;top:-500px">',
        "password",
        FIELD_OFF_SCREEN,
    ),
    "past the edge of a page that does not scroll": (
        (
            "<style>body{overflow:hidden}</style>"
            '<input id="f" type="password" style="position:absolute;left:3000px">'
        ),
        "password",
        FIELD_OFF_SCREEN,
    ),
    "below the fold": (
        '<div style="height:3000px"></div><input id="f" type="password">',
        "password",
        OK,
    ),
    "transparent": (
        '<input id="f" type="password" style="opacity:0">',
        "password",
        FIELD_TRANSPARENT,
    ),
    "in a nearly transparent box": (
        '<div style="opacity:.1"><input id="f" type="password"></div>',
        "password",
        FIELD_TRANSPARENT,
    ),
    "half transparent": (
        '<input id="f" type="password" style="opacity:.5">',
        "password",
        OK,
    ),
    "covered": (
        COVER,
        "password",
        FIELD_COVERED,
    ),
    "under a cookie banner": (
        (
            '<input id="f" type="password">'
            '<div style="position:fixed;inset:0;background:rgba(0,0,0,.6)">We use cookies</div>'
        ),
        "password",
        FIELD_COVERED,
    ),
    "under a transparent layer": (
        COVER.replace("background:#fff", "opacity:0"),
        "password",
        FIELD_COVERED,
    ),
    # --- what real sites do ---
    "a floating <label for> over the field": (
        (
            '<div style="position:relative"><input id="f" type="password">'
            f'<label for="f" style="{OVER}">Password</label></div>'
        ),
        "password",
        OK,
    ),
    "a floating label the hit test looks through": (
        (
            '<div style="position:relative"><input id="f" type="password">'
            f'<span style="{OVER};pointer-events:none">Password</span></div>'
        ),
        "password",
        OK,
    ),
    "a floating label naming its field": (
        (
            '<div style="position:relative"><input id="f" type="password" aria-labelledby="l">'
            f'<span id="l" style="{OVER}">Password</span></div>'
        ),
        "password",
        OK,
    ),
    "code boxes": (
        f'<div id="f">{BOXES}</div>',
        "code",
        OK,
    ),
    "one transparent input over drawn boxes": (
        DRAWN.format(extra="", over=""),
        "code",
        OK,
    ),
    "one transparent input, not focusable": (
        DRAWN.format(extra='" tabindex="-1', over=""),
        "code",
        FIELD_TRANSPARENT,
    ),
    "one transparent input, covered": (
        DRAWN.format(extra="", over=f'<div style="{OVER};z-index:1"></div>'),
        "code",
        FIELD_COVERED,
    ),
    "one transparent input, off the page": (
        f'<div style="position:absolute;left:-9999px">{DRAWN.format(extra="", over="")}</div>',
        "code",
        FIELD_OFF_SCREEN,
    ),
    "a transparent field that is no code": (
        '<input id="f" inputmode="numeric" autocomplete="cc-csc" style="opacity:0">',
        "security_code",
        FIELD_TRANSPARENT,
    ),
    "in a shadow root": (
        SHADOW,
        "password",
        OK,
    ),
    "in a shadow root, covered": (
        SHADOW + '<div style="position:fixed;inset:0;background:#fff"></div>',
        "password",
        FIELD_COVERED,
    ),
}
# name: (the page around the frame, the frame's host, the rule the field breaks)
FRAMED = {
    "in a frame of the page's own": (
        '<iframe src="{frame}" width="400" height="200"></iframe>',
        SITE_HOST,
        OK,
    ),
    "in another site's frame": (
        '<iframe src="{frame}" width="400" height="200"></iframe>',
        ELSEWHERE_HOST,
        OK,
    ),
    "in a frame below the fold": (
        '<div style="height:3000px"></div><iframe src="{frame}"></iframe>',
        ELSEWHERE_HOST,
        OK,
    ),
    "in a transparent frame": (
        '<iframe src="{frame}" style="opacity:0"></iframe>',
        ELSEWHERE_HOST,
        FIELD_TRANSPARENT,
    ),
    "in a covered frame": (
        (
            f'<div style="position:relative"><iframe src="{{frame}}"></iframe><div style="{OVER}">'
            "</div></div>"
        ),
        ELSEWHERE_HOST,
        FIELD_COVERED,
    ),
    "in a frame off the page": (
        '<iframe src="{frame}" style="position:absolute;top:-1000px"></iframe>',
        ELSEWHERE_HOST,
        FIELD_OFF_SCREEN,
    ),
    "in a frame of 1 px": (
        '<iframe src="{frame}" width="1" height="1"></iframe>',
        ELSEWHERE_HOST,
        FIELD_ZERO_SIZE,
    ),
}


def html(body: str) -> web.Response:
    return web.Response(text=f"<!doctype html><title>case</title>{body}", content_type="text/html")


@pytest.fixture(scope="module")
async def case_sites():
    async def case(request):
        name = request.query["name"]
        if name in CASES:
            return html(CASES[name][0])
        around, host, _ = FRAMED[name]
        return html(around.format(frame=f"{hosts[host]}/frame"))

    async def frame(request):
        return html(IN_FRAME)

    routes = [web.get("/case", case), web.get("/frame", frame)]
    hosts: dict[str, str] = {}
    async with serve_on(SITE_HOST, routes) as site, serve_on(ELSEWHERE_HOST, routes) as other:
        hosts.update({SITE_HOST: site, ELSEWHERE_HOST: other})
        yield hosts


@pytest.fixture(scope="module")
async def case_page(browser_chromium):
    # The page alone, read in place: no address guard between it and its sites.
    context = await browser_chromium.new_context(None)
    yield await context.new_page()
    await context.close()


async def look(name: str, selector: str, frame) -> FieldState:
    """A field checked right before it is filled."""
    checks = FieldChecks()
    try:
        return await checks.field(name, selector, frame)
    finally:
        await checks.close()


async def open_case(page, hosts, name: str) -> None:
    await page.goto(f"{hosts[SITE_HOST]}/case?name={name}", wait_until="load")


@pytest.mark.parametrize("name", list(CASES))
async def test_a_field_takes_a_value_only_as_its_rules_say(case_sites, case_page, name):
    _, value_field, expected = CASES[name]
    await open_case(case_page, case_sites, name)
    selector = ".digit" if name == "code boxes" else "#f"

    state = await look(value_field, selector, case_page.main_frame)

    assert state.rule == expected
    if expected == OK:
        assert state.destination == case_sites[SITE_HOST]


@pytest.mark.parametrize("name", list(FRAMED))
async def test_a_framed_field_is_seen_through_its_frame(case_sites, case_page, name):
    """Both ways: all of a frame's targets in one look (before the claim),
    and one field (right before it is filled)."""
    _, host, expected = FRAMED[name]
    await open_case(case_page, case_sites, name)
    (frame,) = [f for f in case_page.frames if f.url.endswith("/frame")]
    checks = FieldChecks()
    try:
        field = frame.locator("#f")
        before = await checks.before_claim(
            [
                Look("#f", field, frame, "password"),
                Look("label", frame.locator("label"), frame, None),
            ]
        )
        then = await checks.field("password", "#f", frame)
    finally:
        await checks.close()

    assert [state.rule for state in before] == [expected, OK]
    assert then.rule == expected
    if expected == OK:
        assert before[0] == then == FieldState(OK, case_sites[host])  # the frame's own origin


async def test_a_code_box_that_is_not_shown_refuses_the_code(case_sites, case_page):
    await open_case(case_page, case_sites, "code boxes")
    await case_page.locator(".digit").last.evaluate("(el) => { el.style.display = 'none'; }")

    state = await look("code", ".digit", case_page.main_frame)

    assert state.rule == FIELD_NOT_SHOWN


async def test_a_field_gone_from_the_page_is_said_to_be_gone(case_sites, case_page):
    await open_case(case_page, case_sites, "password")

    state = await look("password", "#nothing", case_page.main_frame)

    assert state.rule == FIELD_GONE
