"""A phone whose network goes away says so within 3 s: not "● Live", and a BANK total
marked as not current; when the network is back it catches up. A BANK tapped meanwhile
is never sent later (the phone says "Not sent" and the player taps again)."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable

import httpx
import pytest
from playwright.sync_api import Page, WebSocketRoute, expect

from tests.e2e.conftest import Table
from tests.e2e.people import bank, expect_bank, roll
from tests.e2e.test_phone import audit
from tests.e2e.test_reconnect import start_a_game

pytestmark = pytest.mark.e2e

NOTICE_MS = 3_000  # the brief: a dead link is noticed within about 3 s
# The page's timers, the browser and this test's relay (Blackhole) share two cores with
# the rest of the suite, run two at a time: a second more before a late timer fails it.
LOADED_MS = 1_000
NOT_SENT_BANK = "Not sent: you were offline. Tap BANK again if you still want to bank."


def expect_stale(phone: Page) -> None:
    """Not live within NOTICE_MS of the call (and LOADED_MS for the busy machine), and the
    BANK says in words (not only in grey) that it may be old."""
    expect(phone.locator("#conn")).not_to_have_text("● Live", timeout=NOTICE_MS + LOADED_MS)
    expect(phone.locator("#conn")).to_contain_text("Reconnecting…", timeout=NOTICE_MS)
    expect(phone.locator("#bank-total")).to_have_class(re.compile(r"\bstale\b"), timeout=NOTICE_MS)
    expect(phone.locator("#bank-stale")).to_have_text("not current")
    expect(phone.locator("#bank-stale")).to_be_visible()
    expect(phone.locator("#bank-box")).to_contain_text("not current")


def expect_current(phone: Page, total: str) -> None:
    expect(phone.locator("#conn")).to_have_text("● Live", timeout=15_000)
    expect_bank(phone, total)
    expect(phone.locator("#bank-total")).not_to_have_class(re.compile(r"\bstale\b"))
    expect(phone.locator("#bank-stale")).to_be_hidden()


def fits_the_screen(phone: Page) -> None:
    """The status badge stays inside a 360 px screen, and nothing scrolls sideways."""
    box = phone.locator("#conn").bounding_box()
    width = phone.viewport_size["width"] if phone.viewport_size else 0
    assert box is not None and width == 360
    assert box["x"] >= 0 and box["x"] + box["width"] <= width, box
    assert phone.evaluate("document.documentElement.scrollWidth") <= width


def banks_by(table: Table, code: str, name: str) -> list[dict[str, object]]:
    events = httpx.get(f"{table.server.base_url}/api/rooms/{code}/log").json()["events"]
    players = {e["data"]["player_id"]: e["data"]["name"] for e in events if e["type"] == "join"}
    return [e for e in events if e["type"] == "bank" and players[e["data"]["player_id"]] == name]


def test_an_offline_phone_is_stale_at_once_and_catches_up_when_online(table: Table) -> None:
    code, banker, (ann, _bob) = start_a_game(table, "Ann", "Bob")
    roll(banker, 3, 3)
    expect_current(ann, "6")
    context = ann.context

    context.set_offline(True)
    expect_stale(ann)
    roll(banker, 2, 3)  # the BANK moves on while Ann cannot see it
    expect_bank(banker, "11")
    expect_bank(ann, "6")
    bank(ann)  # tapped while offline: not sent, and the phone says so at once
    expect(ann.locator("#tap-note")).to_have_text(NOT_SENT_BANK)
    expect(ann.locator("#bank-btn")).to_have_text("BANK 6")  # there to tap again
    expect(ann.locator("#bank-btn")).to_be_focused()
    expect(ann.locator("#conn")).to_contain_text("(try", timeout=5_000)
    fits_the_screen(ann)
    audit(ann, "player offline")  # the greyed BANK and its note still meet WCAG AA contrast

    context.set_offline(False)
    expect_current(ann, "11")
    assert banks_by(table, code, "Ann") == []  # never sent later: 11 is not what Ann saw
    expect(ann.locator("#bank-btn")).to_have_text("BANK 11")
    bank(ann)  # she still means it: one tap, now
    expect(ann.locator("#bank-btn")).to_have_text("✓ You banked 11")
    expect(ann.locator("#tap-note")).to_be_hidden()
    expect(banker.locator(".row", has_text="Ann").locator(".score")).to_have_text("11")
    assert [e["data"]["amount"] for e in banks_by(table, code, "Ann")] == [11]  # type: ignore[index]


class Blackhole:
    """A link that dies without a word, as Wi-Fi does: nothing gets through either
    way, and no close reaches the page (its TCP socket would look open for ~30 s)."""

    def __init__(self) -> None:
        self.dead = False
        self.pings = 0

    def route(self, ws: WebSocketRoute) -> None:
        server = ws.connect_to_server()

        def upstream(message: str | bytes) -> None:
            if json.loads(message).get("type") == "ping":
                self.pings += 1
            if not self.dead:
                server.send(message)

        def downstream(message: str | bytes) -> None:
            if not self.dead:
                ws.send(message)

        ws.on_message(upstream)
        server.on_message(downstream)


def test_a_silently_dead_link_is_noticed_by_the_heartbeat_within_3_s(table: Table) -> None:
    code, banker, (ann, _bob) = start_a_game(table, "Ann", "Bob")
    link = Blackhole()
    ann.route_web_socket(re.compile(r"/ws/rooms/"), link.route)
    ann.reload()
    roll(banker, 4, 5)
    expect_current(ann, "9")
    pings = link.pings
    until(lambda: link.pings >= pings + 2, ann)  # a visible page pings every second
    expect(ann.locator("#conn")).to_have_text("● Live")  # ...and the pongs keep it live

    link.dead = True
    expect_stale(ann)
    roll(banker, 1, 1)  # doubles in the first three rolls add their dots: 9 + 2
    link.dead = False  # the next socket gets through
    expect_current(ann, "11")
    assert banks_by(table, code, "Ann") == []


def set_visibility(page: Page, state: str) -> None:
    """What the browser does when the screen locks or the tab is shown again."""
    page.evaluate(
        """(state) => {
            Object.defineProperty(document, "visibilityState", {value: state, configurable: true});
            document.dispatchEvent(new Event("visibilitychange"));
        }""",
        state,
    )


def test_a_hidden_page_sleeps_and_checks_its_link_as_soon_as_it_is_seen(table: Table) -> None:
    _code, banker, (ann, _bob) = start_a_game(table, "Ann", "Bob")
    ann.clock.install()  # the phone's timers: run on demand below
    link = Blackhole()
    ann.route_web_socket(re.compile(r"/ws/rooms/"), link.route)
    ann.reload()
    roll(banker, 2, 2)
    expect_current(ann, "4")
    ann.clock.pause_at(time.time() + 0.5)  # from here the phone's time moves only on demand

    set_visibility(ann, "hidden")  # the screen locks...
    link.dead = True  # ...and the Wi-Fi goes while it sleeps
    pings = link.pings
    ann.clock.run_for(10_000)
    expect(ann.locator("#conn")).to_have_text("● Live")  # asleep is not dead
    assert link.pings == pings, "a hidden page does not ping"

    set_visibility(ann, "visible")  # seen again: it pings at once (no timer could)
    until(lambda: link.pings > pings, ann)
    ann.clock.run_for(2_600)  # ...and no pong comes back
    expect_stale(ann)
    link.dead = False
    ann.clock.run_for(1_000)  # the first retry waits at most 0.5 s
    expect_current(ann, "4")


def until(condition: Callable[[], bool], page: Page, seconds: float = 3) -> None:
    """Poll with a deadline, letting the page run between looks."""
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "condition not met in time"
        page.wait_for_timeout(50)
