"""axe-core's WCAG 2.0, 2.1 and 2.2 A and AA rules on a page as it stands (docs/accessibility.md), for the browser
tests that visit every section (test_figure_standard.py) and a class's pages (test_class.py)."""

from __future__ import annotations

from axe_playwright_python.sync_playwright import Axe

# ui/accessibility.js has looked at the page as it stands: after its fonts arrived, with no change pending
FIXED = "() => { const s = window.__attentionLabAccessible; return !!s && s.fontsSeen && !s.pending; }"
# and headings in order (axe-core files it under best practice; WCAG 1.3.1 and 2.4.6 ask for a structure to follow).
# Every node is listed for the violations only: the passes (hundreds of nodes a section) come back with one node each.
WCAG = {
    "runOnly": {"type": "tag", "values": ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]},
    "rules": {"heading-order": {"enabled": True}},
    "resultTypes": ["violations"],
}
AXE = Axe()
# axe-core is loaded into a page once (its script and its rules: a tenth of a second each time), then run on the page
# as it stands each time it is asked; a new document (a page loaded again) loads it again.
LOADED = "() => typeof window.axe?.run === 'function'"
RUN = "(options) => axe.run(document, options)"


def accessibility_violations(page) -> list[dict]:
    """The violations, each as a defect the figure standard reports (kind, text, detail, where), once the app's
    page has been looked at by ui/accessibility.js."""
    page.wait_for_function(FIXED, timeout=30_000)
    return violations_now(page)


def violations_now(page) -> list[dict]:
    """The violations of the page as it stands (any page: see ``accessibility_violations`` for the app's)."""
    if not page.evaluate(LOADED):
        page.evaluate(AXE.axe_script)
    return [
        {"kind": f"WCAG {v['id']}", "text": v["help"], "detail": v["impact"], "chart": str(v["nodes"][0]["target"])}
        for v in page.evaluate(RUN, WCAG)["violations"]
    ]
