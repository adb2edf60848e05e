"""A small phone (360x640) and accessibility: nothing cut off, BANK in reach, AA contrast."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.conftest import TV, Table
from tests.e2e.people import bank, create_game, expect_bank, join_by_link, roll

pytestmark = pytest.mark.e2e

AUDIT = (Path(__file__).parent / "audit.js").read_text()


def audit(page: Page, where: str) -> dict[str, Any]:
    """Fail on text below WCAG AA, sideways overflow, small targets or unnamed buttons."""
    page.evaluate("document.getElementById('flash')?.classList.remove('on')")
    found: dict[str, Any] = page.evaluate(AUDIT)
    assert found["scrollWidth"] <= found["width"], f"{where}: the page scrolls sideways"
    for kind in ("contrast", "overflow", "small", "unnamed"):
        assert found[kind] == [], f"{where}: {kind}: {found[kind]}"
    return found


def test_the_player_page_works_at_360x640(table: Table) -> None:
    banker = table.open("/")
    audit(banker, "home")
    code = create_game(banker)
    start = banker.get_by_role("button", name=re.compile("^Start the game"))
    ann = table.open("/")
    join_by_link(ann, code, "Ann")
    for name in ("Bob", "Cy", "Dee", "Eve", "Flo"):  # a long list: Start must stay in reach
        banker.get_by_label("Add a player without a phone").fill(name)
        banker.get_by_role("button", name="Add", exact=True).click()
        expect(banker.locator("#lobby-players li", has_text=name)).to_be_visible()
    expect(start).to_be_in_viewport(ratio=1)
    audit(banker, "banker lobby")
    audit(ann, "player lobby")
    start.click()

    bank_button = ann.locator("#bank-btn")
    expect(bank_button).to_have_text("BANK opens after the first roll")
    expect(bank_button).to_be_in_viewport(ratio=1)
    audit(ann, "player before the first roll")
    for a, b in ((2, 3), (6, 6), (1, 6), (4, 5)):
        roll(banker, a, b)
    expect_bank(ann, "96")
    expect(ann.locator("#phase")).to_have_text("⚠ DANGER · 4 rolls")
    for locator in (
        bank_button,
        ann.locator("#bank-total"),
        ann.locator("#round-info"),
        ann.locator("#phase"),
    ):
        expect(locator).to_be_in_viewport(ratio=1)
    box = bank_button.bounding_box()
    assert box and box["height"] >= 64 and box["width"] >= 300, "BANK is a huge, thumb-sized button"
    assert box["y"] + box["height"] <= 640
    expect(ann.locator("#bank-box")).to_have_attribute("aria-live", "polite")
    audit(ann, "player in danger")

    # The banker's pad and undo fit the same small screen, with no scrolling.
    for key in banker.locator(".dicepad button").all():
        expect(key).to_be_in_viewport(ratio=1)
    expect(banker.get_by_role("button", name="Undo last roll")).to_be_in_viewport(ratio=1)
    audit(banker, "banker pad")

    bank(ann)
    expect(bank_button).to_have_text("✓ You banked 96")
    expect(bank_button).to_be_in_viewport(ratio=1)
    audit(ann, "player banked")
    roll(banker, 3, 4)
    expect(ann.locator("#banner")).to_have_text("Phew! You banked 96 before the 7.")
    audit(ann, "player after a 7")


def test_every_view_passes_the_audit_to_the_end(table: Table) -> None:
    banker = table.open("/")
    code = create_game(banker, rounds=1)
    tv = table.open(f"/watch/{code}", viewport=TV)
    ann, bob = table.open("/"), table.open("/")
    join_by_link(ann, code, "Ann")
    join_by_link(bob, code, "Bob")
    expect(tv.locator("#tv-lobby-players li")).to_have_count(2)
    audit(tv, "tv lobby")
    banker.get_by_role("button", name=re.compile("^Start the game")).click()
    roll(banker, 5, 5)
    roll(banker, 6, 3)
    expect_bank(bob, "19")
    bank(ann)
    roll(banker, 1, 2)
    expect(tv.locator("#tv-history-empty")).to_be_visible()
    expect(tv.locator("#tv-board .row").first).to_contain_text("Ann")
    audit(tv, "tv playing")
    audit(bob, "player waiting")
    roll(banker, 2, 5)  # a 7 on roll 4 ends the only round
    for page in (ann, bob, banker):
        expect(page.locator("#final-title")).to_have_text("★ Ann wins! ★")
        audit(page, "final")
    expect(bob.locator("#final-me")).to_have_text("You finished 2nd with 0.")
    expect(tv.locator("#tv-winner")).to_have_text("★ Ann wins! ★")
    audit(tv, "tv winner")
