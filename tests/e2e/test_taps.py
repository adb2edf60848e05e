"""A tap acts as the player meant it, or visibly not at all (issue 20): a BANK or a roll
the phone could not deliver at once is never applied later, in a game that moved on."""

from __future__ import annotations

import re
import time

import httpx
import pytest
from playwright.sync_api import expect

from tests.e2e.conftest import Table
from tests.e2e.people import bank, expect_bank, roll
from tests.e2e.test_reconnect import start_a_game
from tests.e2e.test_stale import NOT_SENT_BANK, banks_by, expect_current, expect_stale

pytestmark = pytest.mark.e2e


def rolls_in_log(table: Table, code: str) -> int:
    events = httpx.get(f"{table.server.base_url}/api/rooms/{code}/log").json()["events"]
    return sum(1 for e in events if e["type"] == "roll")


def test_a_bank_tapped_offline_in_round_1_is_not_applied_in_round_2(table: Table) -> None:
    code, banker, (ann, bob) = start_a_game(table, "Ann", "Bob")
    roll(banker, 6, 6)  # 12 in the safe rolls
    roll(banker, 3, 4)  # a safe 7: +70
    expect_current(ann, "82")

    ann.context.set_offline(True)
    expect_stale(ann)
    bank(ann)  # she meant 82, in round 1
    expect(ann.locator("#tap-note")).to_have_text(NOT_SENT_BANK)

    roll(banker, 2, 3)
    roll(banker, 1, 6)  # roll 4 is a 7: round 1 is over, nobody banked
    expect(banker.locator("#round-info")).to_have_text("Round 2 of 20")
    roll(banker, 2, 4)
    expect_bank(bob, "6")

    ann.context.set_offline(False)
    expect_current(ann, "6")
    expect(ann.locator("#round-info")).to_have_text("Round 2 of 20")
    expect(ann.locator("#bank-btn")).to_have_text("BANK 6")  # not "✓ You banked 6"
    expect(banker.locator(".row", has_text="Ann")).not_to_contain_text("banked")
    assert banks_by(table, code, "Ann") == []
    # What became of her tap, in round 2's words (issue 30), until the next roll:
    expect(ann.locator("#tap-note")).to_have_text(
        "Not banked: round 1 ended on a 7 before your BANK got through."
    )
    roll(banker, 1, 2)
    expect_current(ann, "9")
    expect(ann.locator("#tap-note")).to_be_hidden()


def test_the_bankers_pad_refuses_rolls_while_offline(table: Table) -> None:
    code, banker, (ann,) = start_a_game(table, "Ann")
    roll(banker, 2, 3)
    expect_current(banker, "5")

    banker.context.set_offline(True)
    expect_stale(banker)
    key = banker.locator(".dicepad button[data-roll='8']")
    expect(key).to_be_disabled()  # looks it, and takes no roll
    expect(banker.locator("#tap-note")).to_have_text(
        "Offline: the pad takes rolls again once the top bar says ● Live."
    )
    key.click(force=True)
    assert rolls_in_log(table, code) == 1

    banker.context.set_offline(False)
    expect_current(banker, "5")
    expect(banker.locator("#tap-note")).to_be_hidden()
    expect(key).to_be_enabled()
    assert rolls_in_log(table, code) == 1  # nothing was waiting to be sent
    key.click()  # a total 8, live
    expect_bank(ann, "13")
    assert rolls_in_log(table, code) == 2
    expect(key).to_be_focused()  # focus stays on the pressed key


def test_a_bounce_on_the_pad_is_said_not_swallowed(table: Table) -> None:
    code, banker, _phones = start_a_game(table, "Ann")
    banker.clock.install()
    banker.reload()
    expect_current(banker, "0")
    banker.clock.pause_at(time.time() + 0.5)  # time moves only on demand: no 0.3 s passes
    key = banker.locator(".dicepad button[data-roll='9']")
    key.click()
    expect_bank(banker, "9")
    key.click()  # the same key again, "within 0.3 s": a bounce
    expect(banker.locator(".pad-note")).to_have_text(
        "Same key twice in a row: counted once. Tap again to enter it twice."
    )
    expect(key).to_have_class(re.compile(r"\bshake\b"))
    expect_bank(banker, "9")
    assert rolls_in_log(table, code) == 1
