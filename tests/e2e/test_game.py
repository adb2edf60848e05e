"""A whole short game at a table: a banker, three phones, a phoneless player and a TV."""

from __future__ import annotations

import re

import httpx
import pytest
from playwright.sync_api import Locator, Page, expect

from tests.e2e.conftest import TV, Table
from tests.e2e.people import (
    bank,
    bank_for,
    create_game,
    expect_bank,
    join_by_code,
    join_by_link,
    roll,
)

pytestmark = pytest.mark.e2e


def banner(page: Page) -> Locator:
    return page.locator("#banner")


def bank_button(page: Page) -> Locator:
    return page.locator("#bank-btn")


def test_banker_and_three_phones_play_a_three_round_game(table: Table) -> None:
    banker = table.open("/")
    code = create_game(banker, rounds=3)
    tv = table.open(f"/watch/{code}", viewport=TV)
    expect(tv.locator("#tv-code-big")).to_have_text(code)

    ann = table.open("/")
    join_by_code(ann, code, "Ann")
    bob = table.open("/")
    join_by_link(bob, code, "Bob")
    cy = table.open("/")
    join_by_link(cy, code, "Cy")
    banker.get_by_label("Add a player without a phone").fill("Dee")
    banker.get_by_role("button", name="Add", exact=True).click()

    lobby = banker.locator("#lobby-players li")
    expect(lobby).to_have_count(4)
    expect(lobby.filter(has_text="Dee")).to_contain_text("no phone: the banker plays for them")
    expect(tv.locator("#tv-lobby-players li")).to_have_text(["Ann", "Bob", "Cy", "Dee"])
    expect(ann.locator("#lobby-players li")).to_have_count(4)
    qr = banker.get_by_role("img", name=re.compile(rf"^QR code: join http.*\/r\/{code}$"))
    expect(qr).to_be_visible()
    banker.wait_for_function("() => document.querySelector('#lobby-qr').naturalWidth > 0")

    banker.evaluate(
        "window.taps = 0; addEventListener('pointerdown', () => { window.taps += 1; }, true)"
    )
    banker.get_by_role("button", name="Start the game (4 players)").click()
    phones = [ann, bob, cy]
    for page in [*phones, banker]:
        expect(page.locator("#round-info")).to_have_text("Round 1 of 3")
    expect(ann.locator("#turn")).to_have_text("▶ Your roll! Throw, and call the total.")
    expect(bob.locator("#turn")).to_have_text("▶ Ann rolls next")
    expect(bank_button(bob)).to_have_text("BANK opens after the first roll")
    expect(bank_button(bob)).to_be_disabled()

    # Round 1: three safe rolls, Ann banks from her phone, the banker banks for Dee,
    # then a 7 after the third roll wipes the round for Bob and Cy, who waited.
    roll(banker, 4, 4)  # doubles in the first three rolls: face value, +8
    expect_bank(ann, "8")
    roll(banker, 1, 6)  # a safe 7: +70
    roll(banker, 2, 6)
    for page in [*phones, banker]:
        expect_bank(page, "86")
    expect(tv.locator("#tv-bank")).to_have_text("86")
    expect(bob.locator("#phase")).to_have_text("⚠ DANGER · 3 rolls")
    bank(ann)
    expect(bank_button(ann)).to_have_text("✓ You banked 86")
    bank_for(banker, "Dee")
    expect(banker.locator(".row", has_text="Dee")).to_contain_text("✓ banked 86")
    expect(bob.locator("#feed")).to_contain_text("Ann banked 86.")
    roll(banker, 1, 4)
    expect_bank(bob, "91")
    roll(banker, 3, 4)  # a 7 on the fifth roll ends the round
    expect(banner(bob)).to_contain_text("Too late — the 7 came first")

    # The banker can take the 7 back, across the round's end: the banks come back too.
    banker.get_by_role("button", name="Undo last roll").click()
    expect(ann.locator("#round-info")).to_have_text("Round 1 of 3")
    expect_bank(bob, "91")
    expect(banner(bob)).to_be_hidden()
    expect(bank_button(ann)).to_have_text("✓ You banked 86")
    expect(bank_button(bob)).to_have_text("BANK 91")
    roll(banker, 3, 4)

    for loser in (bob, cy):
        expect(banner(loser)).to_contain_text("Too late — the 7 came first")
    expect(banner(ann)).to_have_text("Phew! You banked 86 before the 7.")
    expect(ann.locator("#round-info")).to_have_text("Round 2 of 3")
    expect_bank(bob, "0")
    expect(bob.locator(".row.me .score")).to_have_text("0")
    expect(bob.locator(".row", has_text="Ann")).to_contain_text("86")

    # Round 2: Dee rolls first (seated after Cy, who rolled last). Bob and Cy bank;
    # the banker mistypes a roll and undoes it; then a 7 wipes Ann and Dee.
    expect(banker.locator("#turn")).to_have_text("▶ Enter Dee's roll")
    roll(banker, 5, 6)
    expect(banner(bob)).to_be_hidden()
    roll(banker, 3, 3)
    roll(banker, 4, 5)
    roll(banker, 2, 2)  # doubles from the fourth roll on: BANK ×2
    expect_bank(cy, "52")
    bank(bob)
    bank(cy)
    expect(bank_button(bob)).to_have_text("✓ You banked 52")
    expect(bank_button(cy)).to_have_text("✓ You banked 52")
    roll(banker, 3, 6)
    expect_bank(ann, "61")
    # The banker reads what Undo takes back before tapping it; the feed says what it took.
    expect(banker.locator("#undo-what")).to_have_text("takes back Dee's 9")
    banker.get_by_role("button", name="Undo last roll").click()
    expect_bank(ann, "52")
    expect(ann.locator("#feed li").first).to_have_text("The banker took back Dee's 9.")
    expect(bank_button(bob)).to_have_text("✓ You banked 52")
    roll(banker, 2, 5)
    expect(banner(ann)).to_contain_text("Too late — the 7 came first")
    expect(banner(bob)).to_have_text("Phew! You banked 52 before the 7.")

    # Round 3, the last: Cy banks after a safe 7; a 7 on the fourth roll ends the game.
    expect(cy.locator("#round-info")).to_have_text("Round 3 of 3")
    roll(banker, 6, 6)
    roll(banker, 3, 4)
    roll(banker, 1, 2)
    expect_bank(cy, "85")
    expect(tv.locator("#tv-chart circle")).to_have_count(4)
    bank(cy)
    expect(bank_button(cy)).to_have_text("✓ You banked 85")
    roll(banker, 1, 6)

    for page in [*phones, banker]:
        expect(page.locator("#final-title")).to_have_text("★ Cy wins! ★")
        expect(page.locator("#final-board .name")).to_have_text(
            [re.compile(r"^Cy"), re.compile(r"^Ann"), re.compile(r"^Dee"), re.compile(r"^Bob")]
        )
    expect(cy.locator("#final-me")).to_have_text("You won with 137!")
    expect(ann.locator("#final-me")).to_have_text("You tied for 2nd with 86.")  # with Dee
    expect(ann.locator("#final-board .row", has_text="Dee")).to_contain_text("tied for 2nd")
    expect(bob.locator("#final-me")).to_have_text("You finished 4th with 52.")
    expect(ann.locator("#final-board .score")).to_have_text(["137", "86", "86", "52"])

    expect(tv.locator("#tv-winner")).to_have_text("★ Cy wins! ★")
    history = tv.locator("#tv-final-history tr")
    expect(history).to_have_count(3)
    expect(history.nth(2)).to_contain_text("Ann 86, Dee 86")
    expect(history.nth(0)).to_contain_text("a 7")
    expect(history.nth(0)).to_contain_text("Cy 85")

    # One tap per roll on the banker's phone: the other taps were start, a bank-for, two undos.
    log = httpx.get(f"{table.server.base_url}/api/rooms/{code}/log").json()["events"]
    rolls = sum(1 for event in log if event["type"] == "roll")
    assert rolls == 16
    assert banker.evaluate("window.taps") == rolls + 4
