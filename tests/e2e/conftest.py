"""Browser fixtures: Debian's chromium driven by Playwright's sync API.

One browser for the package (closed before any other package's async tests run);
one browser context per person at the table, so that each has its own
localStorage, as separate phones do. A JavaScript error on any page fails the test, and
so does a Content-Security-Policy violation.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from playwright.sync_api import (
    Browser,
    BrowserContext,
    Page,
    ViewportSize,
    expect,
    sync_playwright,
)

from tests.conftest import ServerProcess

CHROMIUM = shutil.which("chromium")  # Debian's; else Playwright's own (make system-deps)
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
]
PHONE: ViewportSize = {"width": 360, "height": 640}
TV: ViewportSize = {"width": 1280, "height": 720}
TIMEOUT_MS = 10_000

expect.set_options(timeout=TIMEOUT_MS)


@pytest.fixture(autouse=True)
def close_clients() -> Iterator[None]:
    """Overrides tests/conftest.py's async one: browser tests open no protocol clients,
    and no async fixture can run while Playwright's sync API owns this thread's loop."""
    yield


@pytest.fixture(scope="package")
def browser() -> Iterator[Browser]:
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)  # None: bundled
        yield browser
        browser.close()


@dataclass
class Table:
    """Everyone at the table: each `open()` is a new phone (its own context)."""

    browser: Browser
    server: ServerProcess
    contexts: list[BrowserContext] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    def open(
        self,
        path: str = "/",
        viewport: ViewportSize | None = None,
        seats: dict[str, dict[str, Any]] | None = None,
        service_worker: bool = False,
        init_script: str | None = None,
    ) -> Page:
        """A new phone showing `path`, holding `seats` (code -> seat) in its localStorage
        before its first script runs. Its service worker is blocked unless asked for: it
        would precache the whole shell in every new context (a sixth of the browser tests'
        CPU), and only the test of the installable shell is about it. `init_script` runs
        before the page's own."""
        context = self.browser.new_context(
            viewport=viewport or PHONE,
            base_url=self.server.base_url,
            has_touch=True,
            service_workers="allow" if service_worker else "block",
        )
        context.set_default_timeout(TIMEOUT_MS)
        self.contexts.append(context)
        for code, seat in (seats or {}).items():
            saved = json.dumps(json.dumps({"collection": "rooms", **seat, "saved": 0}))
            # saved: 0 keeps it off the home page's "back to your game" list; room.js reads it.
            context.add_init_script(f"localStorage.setItem('bankit:seat:{code}', {saved})")
        if init_script:
            context.add_init_script(init_script)
        page = context.new_page()
        page.on("pageerror", lambda error: self.errors.append(f"{page.url}: {error}"))
        page.on("console", lambda message: self._csp(page, message.text))
        page.goto(path)
        return page

    def _csp(self, page: Page, text: str) -> None:
        """A Content-Security-Policy violation (Chromium reports it on the console) is
        an error like any other: the pages run with no inline script or style."""
        if "Content Security Policy" in text:
            self.errors.append(f"{page.url}: {text}")

    def close(self) -> None:
        for context in self.contexts:
            context.close()


@pytest.fixture
def table(browser: Browser, server: ServerProcess) -> Iterator[Table]:
    table = Table(browser, server)
    yield table
    table.close()
    assert table.errors == [], "JavaScript errors on the pages"


@pytest.fixture(scope="package")
def gallery(browser: Browser, server: ServerProcess) -> Iterator[dict[str, Any]]:
    """Every view of every game, each on a page of its own (tests/e2e/gallery.py), made
    once for the tests that only look at them (test_axe.py, test_scroll.py)."""
    from tests.e2e.gallery import NAMES, bank_views, bunco_views, tournament_views

    table = Table(browser, server)
    views = {**bank_views(table), **bunco_views(table), **tournament_views(table)}
    assert sorted(views) == sorted(NAMES)
    yield views
    table.close()
    assert table.errors == [], "JavaScript errors on the pages"
