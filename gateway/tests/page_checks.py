"""What every page must pass, in the person's own browser: usable at its
width (nothing wider than the screen) and no serious or critical
accessibility violation by axe-core (vendored, see vendor/VENDORED.md).
Console errors are the Person's own check, at its teardown."""

import pathlib

from playwright.async_api import Page

AXE = (pathlib.Path(__file__).parent / "vendor" / "axe-4.14.1.min.js").read_text()
SERIOUS = ("serious", "critical")

# axe's own rules only (WCAG 2.x A and AA, and its best practices); the
# result carries each violation's rule, impact and the elements it found.
# axe leaves text of exactly its background's colour undecided ("incomplete",
# equalRatio: it may be hidden on purpose); no text of ours is, so such text,
# which nobody can read, counts as a serious contrast violation here.
RUN_AXE = """async () => {
  const result = await axe.run(document, {resultTypes: ["violations", "incomplete"]});
  const oneToOne = n => n.any.some(c => c.data && c.data.messageKey === "equalRatio");
  const unreadable = result.incomplete
    .filter(v => v.id === "color-contrast")
    .map(v => ({...v, impact: "serious", help: "text in its background's own colour",
                nodes: v.nodes.filter(oneToOne)}))
    .filter(v => v.nodes.length);
  return [...result.violations, ...unreadable].map(v => ({
    id: v.id,
    impact: v.impact,
    help: v.help,
    nodes: v.nodes.map(n => n.target.join(" ") + " :: " + (n.failureSummary || "1:1 contrast")),
  }));
}"""


async def axe_violations(page: Page) -> list[dict]:
    """The serious and critical violations on the page as it is now.

    The gateway's CSP (script-src 'self') blocks what
    `page.add_script_tag(path=...)` injects, since that is an inline script
    (and a blocked one is a console error that would fail the test). The
    source is evaluated through the DevTools protocol instead, which the
    page's CSP does not govern, so the CSP stays on for the whole visit and
    no bypass_csp context is needed."""
    if not await page.evaluate("() => typeof window.axe === 'object'"):
        await page.evaluate(AXE)
    found = await page.evaluate(RUN_AXE)
    return [v for v in found if v["impact"] in SERIOUS]


async def overflow(page: Page) -> int:
    """How far the page is wider than the viewport, in CSS pixels (0: fits)."""
    width = await page.evaluate("() => document.documentElement.scrollWidth")
    return max(width - page.viewport_size["width"], 0)  # type: ignore[index]


def describe(violations: list[dict]) -> str:
    return "\n".join(
        f"  {v['impact']} {v['id']} ({v['help']}):\n" + "\n".join(f"    {n}" for n in v["nodes"])
        for v in violations
    )


class PageChecks:
    """Runs the checks on each page a test visits and keeps every finding,
    so one run reports all the pages that fail, not only the first."""

    def __init__(self, person, width: int) -> None:
        self.person = person
        self.width = width
        self.checked: list[str] = []
        self.problems: list[str] = []

    async def check(self, name: str, page: Page | None = None) -> None:
        page = page or self.person.page
        await page.wait_for_load_state("load")
        await self.person.shot(f"{name}-{self.width}px", page)
        self.checked.append(name)
        # One pixel of rounding, at most.
        wider = await overflow(page)
        if wider > 1:
            culprits = await page.evaluate(WIDEST)
            self.problems.append(
                f"{name} at {self.width} px: {wider} px wider than the screen; widest: {culprits}"
            )
        violations = await axe_violations(page)
        if violations:
            self.problems.append(
                f"{name} at {self.width} px ({page.url}), axe:\n{describe(violations)}"
            )

    def assert_clean(self) -> None:
        assert not self.problems, "\n".join(self.problems)


# The elements that stick out past the right edge, to say which one to fix.
WIDEST = """() => {
  const edge = document.documentElement.clientWidth;
  return [...document.querySelectorAll("body *")]
    .filter(e => e.getBoundingClientRect().right > edge + 1)
    .slice(0, 5)
    .map(e => {
      const classes = typeof e.className === "string" && e.className ? "." + e.className : "";
      const right = Math.round(e.getBoundingClientRect().right);
      return e.tagName.toLowerCase() + (e.id ? "#" + e.id : "") + classes + " right=" + right;
    });
}"""
