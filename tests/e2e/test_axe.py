"""WCAG 2.2 AA on every view of every game (issues 20, 30): axe-core 4.14 (the rules tagged
wcag2a, wcag2aa, wcag21a, wcag21aa, wcag22aa and the experimental ones: tests/e2e/axe.py)
finds no violation at 360x640, at 390x844 zoomed to 200 % (a 195x422 CSS-pixel viewport,
as the browser lays it out) and at 1280x720; nothing scrolls sideways (reflow, 1.4.10);
every control's name starts with its visible words (2.5.3); every view has a title of its own.

One browser, every view made once on a page of its own (tests/e2e/gallery.py, the package's
`gallery`, shared with test_scroll.py), then each view and size is one test: a resize and an
axe run."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.axe import axe_results, names_not_starting_with_their_words
from tests.e2e.gallery import NAMES, View

pytestmark = pytest.mark.e2e

SIZES = {"360x640": (360, 640), "390x844 at 200%": (195, 422), "1280x720": (1280, 720)}
REFLOW = (Path(__file__).parent / "reflow.js").read_text()


@pytest.mark.parametrize("size", list(SIZES))
@pytest.mark.parametrize("view", NAMES)
def test_every_view_passes_axe_and_reflows(gallery: dict[str, View], view: str, size: str) -> None:
    page, shows = gallery[view]
    width, height = SIZES[size]
    page.set_viewport_size({"width": width, "height": height})
    shows(page)
    found = axe_results(page)  # loaded once per page: the pages stay on their view
    assert found.violations_count == 0, f"{view} at {size}:\n{found.generate_report()}"
    assert names_not_starting_with_their_words(page) == [], f"{view} at {size}"
    reflow = page.evaluate(REFLOW)
    assert reflow["wide"] == [], f"{view} at {size} scrolls sideways: {reflow['wide']}"
    assert reflow["hidden"] == [], f"{view} at {size}: out of reach: {reflow['hidden']}"
    assert page.title() not in ("", "bankit", "bankit · TV"), "a title of its own"
