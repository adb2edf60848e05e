"""Issue 30: every line on every screen follows the game's real rules and state. Each test
drives a room over HTTP and a socket of its own, then reads what a phone or the TV says."""

from __future__ import annotations

import re

import httpx
import pytest
from playwright.sync_api import Page, WebSocketRoute, expect

from tests.e2e.conftest import TV, Table
from tests.e2e.gallery import Made

pytestmark = pytest.mark.e2e


# Counts the calls to navigator.vibrate that Chromium refuses (and logs) on a page nobody
# has tapped yet. Read once at the end: Playwright's every look at a page counts as a tap.
BLOCKED_VIBRATIONS = """
window.blockedVibrations = 0;
const vibrate = navigator.vibrate.bind(navigator);
navigator.vibrate = (pattern) => {
  if (!navigator.userActivation.hasBeenActive) window.blockedVibrations += 1;
  return vibrate(pattern);
};
"""


def bunco_after_one_round(table: Table, movement: str) -> tuple[Made, Page]:
    """An 8-player Bunco night (two tables) after its first round: the Low table scored 2,
    then a Bunco at High rang the bell; and its TV, opened in the lobby."""
    night = Made.create(
        table.server.base_url, "rooms", game="bunco", roll_entry="banker", movement=movement
    )
    night.join(*(f"P{n}" for n in range(8)))
    tv = table.open(f"/watch/{night.code}", viewport=TV)
    moves = {
        "seed": "Winners move up a table (High's winners go to Low)",
        "common": "Winners move up a table (High's winners stay, its losers go to Low)",
    }
    expect(tv.locator("#tv-howto-list li").last).to_contain_text(moves[movement])
    night.send(
        {"type": "start"},
        {"type": "roll", "table": 1, "dice": [1, 1, 2]},
        {"type": "roll", "table": 0, "dice": [1, 1, 1]},
    )
    return night, tv


@pytest.mark.parametrize(
    ("movement", "high_winners", "high_losers"),
    [
        ("seed", "won at High: go to Low", "stay at High"),
        ("common", "won at High: stay at High", "lost at High: go to Low"),
    ],
)
def test_the_bunco_tv_says_who_moves_where_under_either_movement(
    table: Table, movement: str, high_winners: str, high_losers: str
) -> None:
    night, tv = bunco_after_one_round(table, movement)
    state = night.state()
    named = {p["id"]: p["name"] for p in state["players"]}
    sits = {pid: t["name"] for t in state["tables"] for pid in t["seats"]}
    high, low = state["rounds_log"][-1]["tables"]

    def pair(ids: list[str]) -> str:
        return " and ".join(named[i] for i in ids)

    said = {
        pair(high["winners"]): f"★ {pair(high['winners'])} {high_winners}",
        pair(high["losers"]): f"{pair(high['losers'])} {high_losers}",
        pair(low["winners"]): f"★ {pair(low['winners'])} won at Low: go to High",
        pair(low["losers"]): f"{pair(low['losers'])} stay at Low",
    }
    for side in (high["winners"], high["losers"], low["winners"], low["losers"]):
        assert said[pair(side)].endswith(sits[side[0]])  # the server seated them there
    expect(tv.locator("#tv-moves li")).to_have_text(list(said.values()))


def test_a_bank_night_says_what_its_house_rules_and_its_state_say(table: Table) -> None:
    """One night under house rules (1 safe roll, no BANK below 30, doubles double and add):
    the how-to on the phone and the TV, the BANK below the minimum, doubles in the feed and
    on the pad, a reload that keeps the rounds before, the late seat's QR on this computer's
    loopback address, a TV that never asks to vibrate, a finished game's join link."""
    rules = {"safe_rolls": 1, "min_bank": 30, "doubles": "double_add"}
    night = Made.create(table.server.base_url, "rooms", rounds=2, roll_entry="banker", **rules)
    night.join("Ann", "Bob")
    ann = table.open(f"/r/{night.code}", seats={night.code: night.seat("Ann")})
    tv = table.open(f"/watch/{night.code}", viewport=TV)
    untouched = table.open(f"/watch/{night.code}", viewport=TV, init_script=BLOCKED_VIBRATIONS)
    howto = [
        "Every roll adds to one shared BANK.",
        "Roll 1 is safe: a 7 adds 70, doubles add their dots.",
        "From roll 2 on it is danger: doubles double the BANK and add the roll, and a 7 ends"
        " the round. Whoever has not banked gets nothing for it.",
        "Tap BANK on your phone once the BANK is 30 or more to put it into your score, then"
        " sit out the round.",
        "Most points after the last round wins.",
    ]
    expect(ann.locator("#lobby-howto-list li")).to_have_text(howto)
    expect(tv.locator("#tv-howto-list li")).to_have_text(howto)

    night.send({"type": "start"}, {"type": "roll", "total": 8})
    bank_button = ann.locator("#bank-btn")
    expect(bank_button).to_have_text("BANK opens at 30 (now 8)")
    expect(bank_button).to_be_disabled()
    banker = table.open(f"/r/{night.code}", seats={night.code: night.seat(None)})
    key = banker.locator(".dicepad button[data-roll='4-4']")
    expect(key.locator(".hint > span").first).to_have_text("×2 +8")
    hint, box = key.locator(".hint").bounding_box(), key.bounding_box()
    assert hint and box and hint["x"] + hint["width"] <= box["x"] + box["width"], "no overflow"
    night.send({"type": "roll", "dice": [2, 2]})  # danger: 8 × 2 + 4
    expect(ann.locator("#feed li").first).to_have_text("Bob rolled 2+2: doubles: BANK ×2 + 4.")
    expect(bank_button).to_have_text("BANK opens at 30 (now 20)")
    night.send({"type": "roll", "total": 10})
    expect(bank_button).to_have_text("BANK 30")
    bank_button.click()
    expect(bank_button).to_have_text("✓ You banked 30")
    night.send({"type": "roll", "total": 7}, {"type": "roll", "total": 6})  # round 1 ends
    expect(ann.locator("#round-info")).to_have_text("Round 2 of 2")
    ann.reload()
    expect(ann.locator("#feed li")).to_have_text(
        [
            re.compile(r"^(Ann|Bob) rolled 6: \+6\.$"),
            "Round 1 ended on a 7 at 30: Ann had banked.",
            "Ann banked 30.",
        ]
    )

    banker.get_by_role("button", name="+ Seat a late player").click()
    banker.get_by_label("Their name").fill("Dee")
    banker.get_by_role("button", name="Seat them").click()
    expect(banker.locator("#late-qr-note")).to_have_text(
        "Phones cannot reach “127.0.0.1”. Open this page at this computer's network address"
        " (e.g. http://192.168.1.20:8000) so that the QR code works."
    )
    banker.get_by_role("button", name="Done").click()

    night.send({"type": "roll", "total": 7})  # round 2, roll 2: the game is over
    expect(tv.locator("#tv-final")).to_be_visible()
    late = table.open(f"/r/{night.code}")
    expect(late.locator("#join-closed-title")).to_have_text("This game is over.")
    expect(late.locator("#join-closed")).to_contain_text("Its final scores are on the TV view.")
    blocked = untouched.evaluate("window.blockedVibrations")
    assert blocked == 0, "a TV nobody touched asked to vibrate"


class DeafLink:
    """A link on which the server's replies are lost: what the phone sends gets through."""

    def __init__(self) -> None:
        self.deaf = False

    def route(self, ws: WebSocketRoute) -> None:
        server = ws.connect_to_server()
        ws.on_message(server.send)
        server.on_message(lambda message: None if self.deaf else ws.send(message))


def test_a_bank_whose_answer_was_lost_says_not_confirmed_then_what_became_of_it(
    table: Table,
) -> None:
    night = Made.create(table.server.base_url, "rooms", roll_entry="banker")
    night.join("Ann", "Bob")
    night.send({"type": "start"}, {"type": "roll", "total": 8})
    ann = table.open(f"/r/{night.code}", seats={night.code: night.seat("Ann")})
    link = DeafLink()
    ann.route_web_socket(re.compile(r"/ws/rooms/"), link.route)
    ann.reload()
    expect(ann.locator("#conn")).to_have_text("● Live")
    link.deaf = True
    ann.locator("#bank-btn").click()
    expect(ann.locator("#tap-note")).to_have_text(
        "Not confirmed: the connection dropped after you tapped. If it got through, the board"
        " shows you banked; if not, tap BANK again."
    )
    log = httpx.get(f"{night.base}/api/rooms/{night.code}/log").json()["events"]
    assert [e["data"]["amount"] for e in log if e["type"] == "bank"] == [8]  # it did
    link.deaf = False  # the next socket hears the server: the state says she banked
    expect(ann.locator("#bank-btn")).to_have_text("✓ You banked 8", timeout=15_000)
    expect(ann.locator("#tap-note")).to_be_hidden()


def test_a_tournament_phone_says_where_the_night_is(table: Table) -> None:
    """Game 1 of 2 on two tables: Ann's table done before the other, a tie rerolled (her
    own roll, entered on her phone), then game 2 with no rerolls of its own yet; and the
    TV address typed with the tournament's code."""
    base = table.server.base_url
    cup = Made.create(base, "tournaments", games=2, rounds=1, roll_entry="roller")
    cup.join("Ann", "Bob", "Cy", "Dee")
    ann, bob, cy, dee = (cup.id(n) for n in ("Ann", "Bob", "Cy", "Dee"))
    cup.send({"type": "next", "tables": [[ann, bob], [cy, dee]]})
    first, second = (
        Made(base, "rooms", t["code"], cup.token, cup.players) for t in cup.state()["tables"]
    )
    first.send(
        {"type": "start"},
        {"type": "roll", "total": 6},
        {"type": "bank", "player_id": ann},
        {"type": "bank", "player_id": bob},
    )
    phone = table.open(
        f"/t/{cup.code}", seats={cup.code: {**cup.seat("Ann"), "collection": "tournaments"}}
    )
    expect(phone.locator("#t-line")).to_have_text(
        "You play at table 1 with Bob. Your table is done: waiting for the other tables."
    )
    expect(phone.locator("#t-go")).to_be_hidden()  # no "Go to table 1" to a finished table
    expect(phone.locator("#t-standings caption")).to_have_text("Standings: no game scored yet")
    expect(phone.locator("#t-standings td.total")).to_have_text(["–"] * 4)  # not all zeros

    second.send(
        {"type": "start"},
        {"type": "roll", "total": 6},
        {"type": "bank", "player_id": cy},
        {"type": "roll", "total": 8},
        {"type": "bank", "player_id": dee},
    )
    cup.send({"type": "score"})  # Ann, Bob and Cy tie on 6 for 2nd to 4th
    expect(phone.locator("#t-prompt button.primary")).to_have_text(
        "Enter your roll (pick both dice)"
    )
    rolls = {ann: [6, 6], bob: [5, 5], cy: [1, 1]}
    cup.send(*({"type": "reroll", "player_id": p, "dice": d} for p, d in rolls.items()))
    expect(phone.locator("#t-feed-box-title")).to_have_text("Rerolls of game 1")
    expect(phone.locator("#t-feed li")).to_have_count(3)
    cup.send({"type": "next"})
    expect(phone).to_have_url(re.compile(r"/r/\w+$"))  # off to game 2's table by itself…
    phone.get_by_role("link", name=re.compile("^Tournament")).click()  # …and back
    expect(phone.locator("#t-title")).to_have_text("Game 2 of 2")
    expect(phone.locator("#t-feed-box")).to_be_hidden()  # game 1's rerolls are not game 2's

    tv = table.open(f"/watch/{cup.code}", viewport=TV)  # typed as a room's TV address
    expect(tv).to_have_url(re.compile(rf"/watch/t/{cup.code}$"))
    expect(tv.locator("#tt-title")).to_be_visible()
    expect(tv.locator("#tt-feed-box")).to_be_hidden()  # nor on the TV
