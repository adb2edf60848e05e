"""The host's page of a Bunco night in Chromium: banker mode, a roll-off, undo, the end.

Eight players (two tables) join over HTTP; the host enters every roll on the table pads of
its page. A Bunco at the High table while the Low table stands 0-0 rings the bell and
starts a roll-off there, which every phone announces; the host takes the Bunco back (its
undo button names it), enters it again, plays the roll-off out, and the rest of the night
goes through a second host socket. The final screens name the winners, link the CSV and
print as a paper scoresheet (one column per round).
"""

from __future__ import annotations

import re
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Locator, Page, expect

from tests.e2e.conftest import TV, Table
from tests.e2e.test_bunco_night import open_seat
from tests.e2e.test_phone import audit
from tests.games.bunco.bunco_night import BuncoNight

pytestmark = pytest.mark.e2e

NAMES = ["Ann", "Bob", "Cy", "Dee", "Eve", "Flo", "Gus", "Hal"]
DRIVE = (Path(__file__).parent / "bunco_drive.js").read_text()


def enter(card: Locator, dice: tuple[int, int, int]) -> None:
    """The host's three taps and Enter on one table's pad."""
    for value in dice:
        card.get_by_role("button", name=f"Die {value}", exact=True).click()
    card.get_by_role("button", name=re.compile(r"^Enter \d · \d · \d$")).click()


def drive(host: Page, code: str, token: str, commands: list[dict[str, object]]) -> None:
    """Commands on a second host socket of the page's own (the rest of the night)."""
    answers = host.evaluate(DRIVE, {"code": code, "token": token, "commands": commands})
    assert all(a["type"] == "ack" for a in answers), answers


def test_the_host_enters_the_dice_undoes_a_bunco_and_the_night_ends_on_a_scoresheet(
    table: Table,
) -> None:
    night = BuncoNight(table.server.base_url, sets=1, roll_entry="banker")
    code = night.code
    ids = {name: night.join(name) for name in NAMES}
    name_of = {pid: name for name, pid in ids.items()}
    banker = {"token": night.banker_token, "role": "banker", "player_id": None, "name": "Host"}
    host = open_seat(table, f"/r/{code}", banker, code)
    host.get_by_role("button", name="Start the night (8 players, 2 tables)").click()
    tv = open_seat(table, f"/watch/{code}", None, code, viewport=TV)
    expect(host.locator("#h-round")).to_have_text("Round 1 of 6")  # started: tables are seated
    high, low = night.state()["tables"]

    def phone(pid: str) -> Page:
        name = name_of[pid]
        seat = {"token": night.players[name][1], "role": "player", "player_id": pid, "name": name}
        return open_seat(table, f"/r/{code}", seat, code)

    at_high, at_low = phone(high["seats"][1]), phone(low["seats"][0])
    expect(at_low.locator("#b-wait")).to_have_text("The host enters the dice for every table.")
    expect(at_low.locator("#b-roll")).to_be_hidden()
    high_card = host.locator('.tcard[data-table="0"]')
    low_card = host.locator('.tcard[data-table="1"]')
    audit(host, "host, banker pads")

    enter(high_card, (1, 1, 1))
    rolloff = "⚖ Roll-off at the Low table: each player takes one turn."
    for page in (at_high, at_low):
        expect(page.locator("#b-next")).to_have_text(re.compile("^" + re.escape(rolloff)))
    expect(host.locator("#h-phase")).to_have_text("⚖ Roll-off at Low")
    expect(tv.locator("#tv-phase")).to_have_text(rolloff[:-1])
    expect(at_high.locator("#b-banner")).to_contain_text("BUNCO!")
    bunco_by = name_of[high["seats"][0]]
    undo = host.locator("#h-undo")
    expect(undo).to_have_text(f"↶ Undo {bunco_by}'s 1 · 1 · 1 at the High table")
    audit(at_low, "phone, roll-off")
    undo.click()
    expect(host.locator("#h-phase")).to_have_text("▶ Round live: roll for 1s!")
    expect(at_high.locator("#b-banner")).to_have_text("↶ The host took back the last roll.")
    expect(high_card.locator(".pts").first).to_have_text("0")

    enter(high_card, (1, 1, 1))
    expect(host.locator("#h-phase")).to_have_text("⚖ Roll-off at Low")
    # The roll-off: seat 0 scores one and misses, the other three miss: 1-0.
    holders = [0, 1, 2, 3, None]  # who has the dice after each roll (None: the round is over)
    for dice, seat in zip(((1, 2, 3), (2, 3, 4), (2, 3, 4), (2, 3, 4), (2, 3, 4)), holders):
        enter(low_card, dice)
        if seat is not None:
            holder = name_of[low["seats"][seat]]
            expect(low_card.locator(".holder")).to_have_text(f"▶ {holder} has the dice")
    expect(host.locator("#h-phase")).to_have_text("♫ Bell rang · next: round 2")
    state = night.state()
    assert state["rounds_log"][0]["tables"][1]["scores"] == [1, 0]
    expect(host.locator("#h-round")).to_have_text("Round 1 of 6 is over")

    rest: list[dict[str, object]] = [{"type": "ring"}]
    for target in range(2, 7):
        others = [d for d in range(1, 7) if d != target]
        rest += [
            {"type": "roll", "table": 1, "dice": [target, others[0], others[1]]},
            {"type": "roll", "table": 0, "dice": [target] * 3},
        ]
        rest += [{"type": "ring"}] if target < 6 else []
    drive(host, code, night.banker_token, rest)

    final = night.state()
    assert final["status"] == "finished"
    winners = [name_of[pid] for pid in final["winners"]]
    for page in (host, at_high, at_low):
        expect(page.locator("#final-title")).to_contain_text("★ ")
        for name in winners:
            expect(page.locator("#final-title")).to_contain_text(name)
        csv = page.get_by_role("link", name="Download the scoresheet (CSV)")
        expect(csv).to_have_attribute("href", f"/api/rooms/{code}/scoresheet.csv")
    expect(tv.locator("#tv-winner")).to_contain_text("the night!")
    sheet = httpx.get(f"{table.server.base_url}/api/rooms/{code}/scoresheet.csv")
    assert sheet.status_code == 200 and sheet.text.startswith("name,wins,losses,buncos,S1R1")
    rows = host.locator("#final-sheet tbody tr")
    expect(rows).to_have_count(8)
    expect(rows.first.locator("td.rounds")).to_have_text(re.compile("^[WL]{6}$"))
    audit(host, "host, final")
    audit(at_low, "phone, final")
    audit(tv, "TV, final")

    host.emulate_media(media="print")
    expect(host.locator("#final-sheet thead th.per-round")).to_have_count(6)
    expect(host.locator("#final-sheet thead th.per-round").first).to_be_visible()
    expect(host.locator("#final-sheet td.rounds").first).to_be_hidden()
    expect(host.locator(".topbar")).to_be_hidden()


def test_in_virtual_mode_the_roller_taps_roll_and_sound_stays_as_the_player_set_it(
    table: Table,
) -> None:
    night = BuncoNight(table.server.base_url, sets=1, roll_entry="virtual")
    code = night.code
    ids = {name: night.join(name) for name in NAMES}
    banker = {"token": night.banker_token, "role": "banker", "player_id": None, "name": "Host"}
    host = open_seat(table, f"/r/{code}", banker, code)
    host.get_by_role("button", name="Start the night (8 players, 2 tables)").click()
    expect(host.locator("#h-round")).to_have_text("Round 1 of 6")
    first = night.state()["tables"][1]["seats"][0]
    name = next(n for n, pid in ids.items() if pid == first)
    seat = {"token": night.players[name][1], "role": "player", "player_id": first, "name": name}
    phone = open_seat(table, f"/r/{code}", seat, code)

    expect(phone.get_by_role("button", name=re.compile("^Sound"))).to_have_count(1)  # one switch
    sound = phone.get_by_role("button", name="Sound off")
    expect(sound).to_have_attribute("aria-pressed", "false")  # off by default
    sound.click()
    expect(phone.get_by_role("button", name="Sound on")).to_have_attribute("aria-pressed", "true")
    roll = phone.get_by_role("button", name="ROLL", exact=True)
    expect(roll).to_be_in_viewport(ratio=1)
    audit(phone, "phone, virtual ROLL")
    roll.click()
    last = phone.locator("#b-mine .last-text")
    expect(last).to_have_text(
        re.compile(r"^You: (\+\d+|three of a kind \+5|BUNCO! \+21|miss: .+)$")
    )
    rolled = night.state()["tables"][1]["last_roll"]
    assert rolled["by"] == first and len(rolled["dice"]) == 3
    expect(host.locator('.tcard[data-table="1"] .last-text')).to_have_text(re.compile(f"^{name}: "))
    expect(host.get_by_role("button", name=re.compile(r"^Roll for "))).to_have_count(2)

    phone.reload()
    expect(phone.get_by_role("button", name="Sound on")).to_be_visible()  # remembered
