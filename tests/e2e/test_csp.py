"""The pages run under their Content-Security-Policy: no violation anywhere (issue 19).

`Table` (tests/e2e/conftest.py) fails a test on any violation Chromium reports; here
every page is walked on purpose: home, the banker's lobby with its QR code, a phone's
seat, a game being played, the TV, and a Bunco room.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.conftest import TV, Table
from tests.e2e.people import create_game, join_by_link, roll

pytestmark = pytest.mark.e2e


def violations(page: Page) -> list[str]:
    """What the page's own `securitypolicyviolation` listener saw (set up at load)."""
    return page.evaluate("window.__cspViolations || []")  # type: ignore[no-any-return]


def watch_violations(page: Page) -> None:
    page.add_init_script(
        "window.__cspViolations = [];"
        "document.addEventListener('securitypolicyviolation',"
        " (e) => window.__cspViolations.push(e.violatedDirective + ' ' + e.blockedURI));"
    )


def test_no_page_breaks_the_content_security_policy(table: Table) -> None:
    banker = table.open("/")
    watch_violations(banker)
    banker.reload()
    response = banker.request.get("/")
    assert "frame-ancestors 'none'" in response.headers["content-security-policy"]
    code = create_game(banker)
    expect(banker.locator("#lobby-qr")).to_have_attribute("src", f"/api/rooms/{code}/qr.svg")
    ann = table.open("/")
    watch_violations(ann)
    join_by_link(ann, code, "Ann")
    tv = table.open(f"/watch/{code}", viewport=TV)
    watch_violations(tv)
    tv.reload()
    banker.get_by_role("button", name="Start the game (1 player)").click()
    roll(banker, 3, 4)
    expect(tv.locator("body")).to_contain_text("Ann")
    bunco_home = table.open("/")
    watch_violations(bunco_home)
    bunco_home.reload()
    for page in (banker, ann, tv, bunco_home):
        assert violations(page) == [], page.url
    assert table.errors == []
