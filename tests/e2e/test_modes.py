"""Who enters the dice: each roller on their own phone, or the app's virtual dice."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.e2e.conftest import Table
from tests.e2e.people import create_game, expect_bank, join_by_link, roll

pytestmark = pytest.mark.e2e


def test_in_roller_mode_the_roller_taps_their_own_roll(table: Table) -> None:
    banker = table.open("/")
    code = create_game(banker, entry="roller")
    ann, bob = table.open("/"), table.open("/")
    join_by_link(ann, code, "Ann")
    join_by_link(bob, code, "Bob")
    expect(banker.locator("#lobby-settings")).to_have_text(
        "20 rounds · each roller enters their own roll"
    )
    banker.get_by_role("button", name=re.compile("^Start the game")).click()

    expect(ann.locator("#pad-title")).to_have_text("Your roll: tap what you threw")
    expect(bob.locator(".dicepad")).to_be_hidden()
    roll(ann, 2, 6)
    expect_bank(bob, "8")
    expect(ann.locator(".dicepad")).to_be_hidden()
    expect(bob.locator("#pad-title")).to_have_text("Your roll: tap what you threw")
    roll(bob, 2, 2)
    expect_bank(ann, "12")
    expect(banker.locator("#last-roll")).to_have_text("Bob rolled 4 (doubles)")
    roll(banker, 1, 2)  # the banker may still type it for whoever is rolling (Ann)
    expect_bank(bob, "15")
    expect(bob.locator("#last-roll")).to_have_text("Ann rolled 3")


def test_with_virtual_dice_the_roller_taps_roll(table: Table) -> None:
    banker = table.open("/")
    code = create_game(banker, entry="virtual")
    ann, bob = table.open("/"), table.open("/")
    join_by_link(ann, code, "Ann")
    join_by_link(bob, code, "Bob")
    banker.get_by_role("button", name=re.compile("^Start the game")).click()

    expect(bob.get_by_role("button", name="ROLL the dice")).to_be_hidden()
    ann.get_by_role("button", name="ROLL the dice").click()
    expect(bob.locator("#bank-total")).to_have_text(re.compile(r"^[1-9][0-9]*$"))
    expect(bob.locator("#last-roll")).to_have_text(re.compile(r"^Ann rolled \d+"))
    expect(bob.locator("#phase")).to_have_text("✓ SAFE · 1 roll")
    bob.get_by_role("button", name="ROLL the dice").click()
    expect(ann.locator("#phase")).to_have_text("✓ SAFE · 2 rolls")
    expect(banker.get_by_role("button", name="ROLL for Ann")).to_be_visible()


def test_a_bouncing_double_tap_on_the_pad_is_one_roll(table: Table) -> None:
    banker = table.open("/")
    code = create_game(banker)
    ann = table.open("/")
    join_by_link(ann, code, "Ann")
    banker.get_by_role("button", name=re.compile("^Start the game")).click()
    banker.get_by_role("button", name=re.compile(r"^Roll 8:")).dblclick()
    roll(banker, 1, 4)
    expect_bank(ann, "13")
    expect(ann.locator("#phase")).to_have_text("✓ SAFE · 2 rolls")
