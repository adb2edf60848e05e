"""Real phones lose their socket: a reload, a locked screen, Wi-Fi to mobile."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, WebSocketRoute, expect

from tests.e2e.conftest import Table
from tests.e2e.people import bank, create_game, expect_bank, join_by_link, roll

pytestmark = pytest.mark.e2e


def seat_of(page: Page, code: str) -> dict[str, str]:
    seat = page.evaluate(f"JSON.parse(localStorage.getItem('bankit:seat:{code}'))")
    assert seat and seat["token"] and seat["player_id"]
    return seat  # type: ignore[no-any-return]


def start_a_game(table: Table, *names: str) -> tuple[str, Page, list[Page]]:
    banker = table.open("/")
    code = create_game(banker)
    phones = []
    for name in names:
        phone = table.open("/")
        join_by_link(phone, code, name)
        phones.append(phone)
    banker.get_by_role("button", name=re.compile("^Start the game")).click()
    for phone in phones:
        expect(phone.locator("#round-info")).to_have_text("Round 1 of 20")
    return code, banker, phones


def test_a_phone_reloaded_mid_round_returns_to_the_same_seat(table: Table) -> None:
    code, banker, (ann, bob) = start_a_game(table, "Ann", "Bob")
    roll(banker, 5, 6)
    expect_bank(ann, "11")
    seat = seat_of(ann, code)

    ann.reload()
    expect(ann.locator("#view-join")).to_be_hidden()
    expect(ann.locator(".row.me .name")).to_have_text("Ann (you)")
    expect_bank(ann, "11")
    assert seat_of(ann, code) == seat
    bank(ann)
    expect(ann.locator("#bank-btn")).to_have_text("✓ You banked 11")

    ann.reload()  # the amount comes back from the room's log
    expect(ann.locator("#bank-btn")).to_have_text("✓ You banked 11")
    expect(ann.locator("#turn")).to_have_text("You sit out the rest of this round.")
    expect(banker.locator(".row", has_text="Ann")).to_contain_text("✓ banked 11")
    expect(bob.locator(".row", has_text="Ann")).to_contain_text("11")
    expect(bob.locator(".row", has_text="Ann")).not_to_contain_text("offline")

    ann.goto("/")  # the tab was closed: the home page offers the way back
    ann.get_by_role("link", name=f"{code} · as Ann").click()
    expect(ann.locator("#bank-btn")).to_have_text("✓ You banked 11")


class Cable:
    """The network between one phone and the server, which a test can cut and mend."""

    def __init__(self) -> None:
        self.up = True
        self.open: list[tuple[WebSocketRoute, WebSocketRoute]] = []

    def route(self, ws: WebSocketRoute) -> None:
        if not self.up:
            ws.close(code=1006, reason="no network")
            return
        self.open.append((ws, ws.connect_to_server()))

    def cut(self) -> None:
        self.up = False
        while self.open:
            page_side, server_side = self.open.pop()
            page_side.close(code=1006, reason="no network")
            server_side.close()


def test_a_dropped_socket_says_reconnecting_and_comes_back_with_the_seat(table: Table) -> None:
    code, banker, (ann, _bob) = start_a_game(table, "Ann", "Bob")
    cable = Cable()
    ann.route_web_socket(re.compile(r"/ws/rooms/"), cable.route)
    ann.reload()
    expect(ann.locator("#conn")).to_have_text("● Live")
    roll(banker, 3, 3)
    expect_bank(ann, "6")

    cable.cut()
    expect(ann.locator("#conn")).to_contain_text("Reconnecting…")
    bank(ann)  # tapped while the phone is offline: not sent, now or later
    expect(ann.locator("#tap-note")).to_contain_text("Not sent: you were offline.")
    expect(banker.locator(".row", has_text="Ann")).not_to_contain_text("banked")

    cable.up = True
    expect(ann.locator("#conn")).to_have_text("● Live", timeout=15_000)
    expect(banker.locator(".row", has_text="Ann")).not_to_contain_text("banked")
    bank(ann)  # tapped again, live
    expect(ann.locator("#bank-btn")).to_have_text("✓ You banked 6")
    expect(banker.locator(".row", has_text="Ann")).to_contain_text("✓ banked 6")
    expect(banker.locator(".row", has_text="Ann").locator(".score")).to_have_text("6")
    expect(ann.locator(".row.me .name")).to_have_text("Ann (you)")
    assert seat_of(ann, code)["name"] == "Ann"


def feed_of(page: Page) -> list[str]:
    return page.locator("#feed li").all_inner_texts()


def test_a_reconnect_rebuilds_the_feed_as_a_reload_does_and_says_what_was_missed(
    table: Table,
) -> None:
    _code, banker, (ann, bob) = start_a_game(table, "Ann", "Bob")
    cable = Cable()
    ann.route_web_socket(re.compile(r"/ws/rooms/"), cable.route)
    ann.reload()
    roll(banker, 4, 5)
    expect_bank(ann, "9")

    cable.cut()
    expect(ann.locator("#conn")).to_contain_text("Reconnecting…")
    roll(banker, 2, 2)  # 9 + 4
    roll(banker, 6, 5)  # + 11
    bank(bob)
    roll(banker, 1, 2)  # + 3
    expect_bank(banker, "27")

    cable.up = True
    expect(ann.locator("#conn")).to_have_text("● Live", timeout=15_000)
    expect_bank(ann, "27")
    expect(ann.locator("#toast")).to_have_text("You're back: you missed 3 rolls.")
    expect(ann.locator("#say-log")).to_contain_text("You're back: you missed 3 rolls.")
    after_reconnect = feed_of(ann)
    assert "Bob banked 24." in after_reconnect
    ann.reload()
    expect_bank(ann, "27")
    expect(ann.locator("#feed li")).to_have_count(len(after_reconnect))
    assert feed_of(ann) == after_reconnect
