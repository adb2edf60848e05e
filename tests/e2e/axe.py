"""axe-core for the browser tests: the version vendored in tests/e2e/vendor/axe-core/ (4.14.1,
newer than the one axe-playwright-python ships), run on the WCAG 2.2 A/AA tags with the
experimental rules included (label-content-name-mismatch, 2.5.3 Label in Name, is one)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from axe_playwright_python.base import AxeResults
from playwright.sync_api import Page

SCRIPT = (Path(__file__).parent / "vendor" / "axe-core" / "axe.min.js").read_text()
TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "experimental"]
OPTIONS: dict[str, Any] = {"runOnly": {"type": "tag", "values": TAGS}}


def axe_results(page: Page, context: Any = None) -> AxeResults:
    """axe on `page` (the whole document, or `context`), loaded once per page."""
    if not page.evaluate("typeof window.axe === 'object' && axe.version === '4.14.1'"):
        page.evaluate(SCRIPT)
    run = "([context, options]) => axe.run(context || document, options)"
    return AxeResults(page.evaluate(run, [context, OPTIONS]))


NAME_STARTS = (Path(__file__).parent / "labelname.js").read_text()


def names_not_starting_with_their_words(page: Page) -> list[str]:
    """The controls named apart from their words whose name does not start with them
    (WCAG 2.5.3 Label in Name as speech input meets it; tests/e2e/labelname.js)."""
    return page.evaluate(NAME_STARTS)  # type: ignore[no-any-return]
