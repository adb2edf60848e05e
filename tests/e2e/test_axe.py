"""WCAG 2.2 AA on every view of every game (issue 20): axe-core (the rules tagged wcag2a,
wcag2aa, wcag21a, wcag21aa, wcag22aa) finds no violation at 360x640, at 390x844 zoomed to
200 % (a 195x422 CSS-pixel viewport, as the browser lays it out) and at 1280x720; nothing
scrolls sideways (reflow, 1.4.10); every view has a title of its own.

One browser, every view made once on a page of its own (tests/e2e/gallery.py, the package's
`gallery`, shared with test_scroll.py), then each view and size is one test: a resize and an
axe run."""

from __future__ import annotations

from pathlib import Path

import pytest
from axe_playwright_python.base import AxeResults
from axe_playwright_python.sync_playwright import Axe

from tests.e2e.gallery import NAMES, View

pytestmark = pytest.mark.e2e

TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]
SIZES = {"360x640": (360, 640), "390x844 at 200%": (195, 422), "1280x720": (1280, 720)}
AXE = Axe()
RUN = "(options) => axe.run(document, options)"
REFLOW = (Path(__file__).parent / "reflow.js").read_text()


@pytest.mark.parametrize("size", list(SIZES))
@pytest.mark.parametrize("view", NAMES)
def test_every_view_passes_axe_and_reflows(gallery: dict[str, View], view: str, size: str) -> None:
    page, shows = gallery[view]
    width, height = SIZES[size]
    page.set_viewport_size({"width": width, "height": height})
    shows(page)
    if not page.evaluate("typeof window.axe === 'object'"):
        page.evaluate(AXE.axe_script)  # once per page: the pages stay on their view
    found = AxeResults(page.evaluate(RUN, {"runOnly": {"type": "tag", "values": TAGS}}))
    assert found.violations_count == 0, f"{view} at {size}:\n{found.generate_report()}"
    reflow = page.evaluate(REFLOW)
    assert reflow["wide"] == [], f"{view} at {size} scrolls sideways: {reflow['wide']}"
    assert reflow["hidden"] == [], f"{view} at {size}: out of reach: {reflow['hidden']}"
    assert page.title() not in ("", "bankit", "bankit · TV"), "a title of its own"
