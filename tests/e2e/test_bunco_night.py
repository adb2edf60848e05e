"""A Bunco night on 12 phones, a host and a TV, in Chromium: one round to the bell.

Twelve players join over HTTP; each phone opens its own seat (the token saved in its own
localStorage, as the join form would have done). The dice are entered by the rollers on
their phones' three-dice pads (roll_entry "roller"), so every roll is scripted and the
test is deterministic: the Middle and Low tables' first rollers score a point, the Low
table's roller taps a roll on a slow link, the High table's first roller throws a
Bunco (the bell), and the Low phone's roll arrives after it: "Too late".
"""

from __future__ import annotations

import json
import re
import time
from typing import Any

import pytest
from playwright.sync_api import Page, WebSocketRoute, expect

from tests.e2e.conftest import PHONE, TV, Table
from tests.e2e.test_phone import audit
from tests.e2e.test_stale import until
from tests.games.bunco.bunco_night import BuncoNight

pytestmark = pytest.mark.e2e

NAMES = ["Ann", "Bob", "Cy", "Dee", "Eve", "Flo", "Gus", "Hal", "Ivy", "Jo", "Kim", "Lu"]


class SlowLink:
    """A phone's socket whose commands of one type (rolls) can be held on the way to the
    server, then let go."""

    def __init__(self, kind: str = "roll") -> None:
        self.kind = kind
        self.holding = False
        self.held: list[str | bytes] = []
        self.server: WebSocketRoute | None = None

    def route(self, ws: WebSocketRoute) -> None:
        server = ws.connect_to_server()
        self.server = server

        def upstream(message: str | bytes) -> None:
            if self.holding and json.loads(message).get("type") == self.kind:
                self.held.append(message)
            else:
                server.send(message)

        ws.on_message(upstream)
        server.on_message(ws.send)

    def release(self) -> None:
        self.holding = False
        assert self.server is not None
        while self.held:
            self.server.send(self.held.pop(0))


def open_seat(
    table: Table, path: str, seat: dict[str, Any] | None, code: str, *, viewport: Any = PHONE
) -> Page:
    """A phone (its own context) that already holds `seat` for room `code`."""
    return table.open(path, viewport, {code: seat} if seat is not None else None)


def roll_on_pad(phone: Page, dice: tuple[int, int, int]) -> None:
    """Three taps on the dice faces, then Roll."""
    for value in dice:
        phone.get_by_role("button", name=f"Die {value}", exact=True).click()
    phone.get_by_role("button", name=re.compile(r"^Roll \d · \d · \d$")).click()


def movement(state: dict[str, Any], pid: str) -> str:
    """The sentence a player reads after the round, from the new state and the round's log."""
    result = state["rounds_log"][-1]
    index = next(i for i, t in enumerate(result["tables"]) if pid in t["seats"])
    won = pid in result["tables"][index]["winners"]
    new = next(t for t in state["tables"] if pid in t["seats"])
    seat = new["seats"].index(pid)
    partner = next(p["name"] for p in state["players"] if p["id"] == new["seats"][(seat + 2) % 4])
    move = "Stay at" if new["table"] == index else "Go to"
    head = "You won!" if won else "You lost."
    return f"{head} {move} the {new['name']} table, sit across from {partner}."


def test_twelve_phones_play_a_round_to_the_bell_and_read_where_to_sit_next(table: Table) -> None:
    night = BuncoNight(table.server.base_url, sets=1, roll_entry="roller")
    code = night.code
    ids = {name: night.join(name) for name in NAMES}
    name_of = {pid: name for name, pid in ids.items()}

    host = open_seat(
        table,
        f"/r/{code}",
        {"token": night.banker_token, "role": "banker", "player_id": None, "name": "Banker"},
        code,
    )
    expect(host.locator("#lobby-settings")).to_contain_text("for 8, 12, 16, 20 or 24 players")
    start = host.get_by_role("button", name="Start the night (12 players, 3 tables)")
    expect(start).to_be_enabled()
    tv = open_seat(table, f"/watch/{code}", None, code, viewport=TV)
    phones = {
        name: open_seat(
            table,
            f"/r/{code}",
            {
                "token": night.players[name][1],
                "role": "player",
                "player_id": ids[name],
                "name": name,
            },
            code,
        )
        for name in NAMES
    }
    for name, phone in phones.items():
        expect(phone.get_by_role("heading", name=f"You're in, {name}!")).to_be_visible()
    start.click()

    expect(tv.locator("#tv-round")).to_have_text("Round 1 of 6")
    state = night.state()
    high, middle, low = state["tables"]
    assert [t["name"] for t in state["tables"]] == ["High", "Middle", "Low"]
    for t in state["tables"]:
        for seat, pid in enumerate(t["seats"]):
            partner = name_of[t["seats"][(seat + 2) % 4]]
            mine = phones[name_of[pid]].locator("#b-mine")
            expect(mine.locator(".tname-text")).to_have_text(f"{t['name']} table")
            expect(mine).to_contain_text(f"You & {partner}")
    first = {t["name"]: phones[name_of[t["seats"][0]]] for t in state["tables"]}
    expect(first["High"].locator("#b-mine .holder")).to_have_text("▶ Your roll!")
    second_at_high = phones[name_of[high["seats"][1]]]
    expect(second_at_high.locator("#b-mine .holder")).to_have_text(
        f"▶ {name_of[high['seats'][0]]} has the dice"
    )
    audit(first["High"], "phone, my roll (pad)")
    pad_roll = first["High"].get_by_role("button", name=re.compile(r"^Roll \(pick 3 more\)$"))
    expect(pad_roll).to_be_in_viewport(ratio=1)  # the pad fits a 360x640 phone, no scrolling
    audit(second_at_high, "phone, waiting for the dice")
    audit(host, "host, round live")
    audit(tv, "TV, round live")

    # The lower tables roll while the High table plays.
    roll_on_pad(first["Middle"], (1, 2, 3))
    roll_on_pad(first["Low"], (1, 4, 5))
    for pid in (*middle["seats"], *low["seats"]):
        expect(phones[name_of[pid]].locator("#b-mine .last-text")).to_contain_text(": +1")
    expect(host.locator('.tcard[data-table="2"] .pts').first).to_have_text("1")
    expect(tv.locator("#tv-tables")).to_contain_text("+1")
    expect(first["High"].locator("#b-strip")).to_contain_text("Middle 1–0")

    # Low's roller is on a slow link: its next roll is on its way (held here) while...
    low_phone = first["Low"]
    link = SlowLink()
    low_phone.route_web_socket(re.compile(r"/ws/rooms/"), link.route)
    low_phone.clock.install()  # the phone's timers wait for the test: its roll is not given up
    low_phone.reload()
    expect(low_phone.locator("#conn")).to_have_text("● Live")
    low_phone.clock.pause_at(time.time() + 0.5)
    link.holding = True
    roll_on_pad(low_phone, (2, 3, 4))
    until(lambda: link.held, low_phone)

    # ...the High table's first roller throws three 1s: a Bunco, 21, the bell.
    roll_on_pad(first["High"], (1, 1, 1))
    expect(tv.locator("#tv-event")).to_contain_text("The bell!")
    state = night.state()
    assert state["phase"] == "waiting" and len(state["rounds_log"]) == 1
    for name, phone in phones.items():
        if phone is low_phone:
            continue
        expect(phone.locator("#b-banner")).to_contain_text("The bell!")
        expect(phone.locator("#b-next")).to_have_text(movement(state, ids[name]))
        expect(phone.locator("#b-next")).to_be_in_viewport(ratio=1)  # no scrolling to find it
    for pid in high["seats"]:
        expect(phones[name_of[pid]].locator("#b-banner")).to_contain_text("BUNCO!")
    winners_high = state["rounds_log"][0]["tables"][0]["winners"]
    assert (
        phones[name_of[winners_high[0]]]
        .locator("#b-next")
        .inner_text()
        .startswith("You won! Go to the Low table")
    )
    expect(phones[name_of[winners_high[0]]].locator("#flash")).to_have_attribute(
        "data-kind", "bell"
    )

    # The Low phone's roll reaches the server after the bell.
    link.release()
    expect(low_phone.locator("#b-banner")).to_have_text("Too late: the bell rang")
    expect(low_phone.locator("#say-now")).to_have_text("Too late: the bell rang")
    expect(low_phone.locator("#toast")).to_be_hidden()  # one clear message, not two
    expect(low_phone.locator("#b-next")).to_have_text(movement(state, low["seats"][0]))
    assert night.state()["seq"] == state["seq"], "the late roll changed nothing"

    # The new High table's players have RING; nobody else does. The host's page too.
    new_high = set(state["tables"][0]["seats"])
    for name, phone in phones.items():
        ring = phone.get_by_role("button", name="♫ RING: start round 2")
        if ids[name] in new_high:
            expect(ring).to_be_in_viewport(ratio=1)
        else:
            expect(ring).to_be_hidden()
    expect(host.get_by_role("button", name="♫ RING: start round 2")).to_be_enabled()
    expect(host.locator("#h-phase")).to_have_text("♫ Bell rang · next: round 2")
    expect(host.locator("#h-undo")).to_have_text(
        re.compile(r"^↶ Undo .*'s 1 · 1 · 1 at the High table")
    )
    expect(tv.locator("#tv-moves")).to_contain_text("won at High: go to Low")
    scores = "Round 1 ended: High 21–0 · Middle 1–0 · Low 1–0"  # shown until round 2 starts
    for page, where in ((low_phone, "#b-scores"), (host, "#h-scores"), (tv, "#tv-scores")):
        expect(page.locator(where)).to_have_text(scores)
    expect(tv.locator("#tv-leader li").first).to_contain_text("1 win")
    audit(phones[name_of[winners_high[0]]], "phone at the bell")
    audit(low_phone, "phone, too late")
    audit(host, "host at the bell")
    audit(tv, "TV at the bell")

    # A player of the new High table rings round 2: every phone is live again.
    ringer = phones[name_of[state["tables"][0]["seats"][0]]]
    ringer.get_by_role("button", name="♫ RING: start round 2").click()
    for phone in phones.values():
        expect(phone.locator("#b-phase")).to_have_text("▶ Round live: roll for 2s!")
        expect(phone.locator("#b-scores")).to_be_hidden()
    expect(low_phone.locator("#b-banner")).to_be_hidden()
