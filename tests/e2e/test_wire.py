"""What the pages put on the wire: an id on every command, a ping every second, and a
socket that stops answering is dropped and replaced (the phone's clock is faked)."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from playwright.sync_api import Page, WebSocketRoute, expect

from tests.e2e.conftest import Table
from tests.e2e.people import bank, create_game, expect_bank, join_by_link, roll

pytestmark = pytest.mark.e2e


class Tap:
    """Forwards a phone's socket to the server, noting what the phone sends; when
    `deaf`, swallows pings as a dead Wi-Fi link would."""

    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []
        self.deaf = False
        self.slow_banks = False
        self.held: list[tuple[WebSocketRoute, str | bytes]] = []

    def route(self, ws: WebSocketRoute) -> None:
        server = ws.connect_to_server()

        def upstream(message: str | bytes) -> None:
            command = json.loads(message)
            self.sent.append(command)
            if self.deaf and command["type"] == "ping":
                return
            if self.slow_banks and command["type"] == "bank":
                self.held.append((server, message))
                return
            server.send(message)

        ws.on_message(upstream)

    def release(self) -> None:
        while self.held:
            server, message = self.held.pop(0)
            server.send(message)


def start_with_a_tapped_phone(table: Table, fake_clock: bool = False) -> tuple[Page, Page, Tap]:
    """A started game: the banker, Ann on a phone whose socket is tapped, phoneless Bob."""
    banker = table.open("/")
    code = create_game(banker)
    ann = table.open("/")
    if fake_clock:
        ann.clock.install()
    tap = Tap()
    ann.route_web_socket(re.compile(r"/ws/rooms/"), tap.route)
    join_by_link(ann, code, "Ann")
    banker.get_by_label("Add a player without a phone").fill("Bob")
    banker.get_by_role("button", name="Add", exact=True).click()
    expect(ann.locator("#lobby-players li")).to_have_count(2)
    banker.get_by_role("button", name=re.compile("^Start the game")).click()
    return banker, ann, tap


def test_commands_carry_ids_pings_flow_and_a_deaf_socket_is_replaced(table: Table) -> None:
    banker, ann, tap = start_with_a_tapped_phone(table, fake_clock=True)
    roll(banker, 2, 6)
    expect_bank(ann, "8")
    bank(ann)
    expect(ann.locator("#bank-btn")).to_have_text("✓ You banked 8")

    tap.deaf = True
    ann.clock.run_for(1_000)  # the ping is due
    ann.clock.run_for(2_600)  # ...and its pong never came
    expect(ann.locator("#conn")).to_contain_text("Reconnecting…")
    tap.deaf = False
    ann.clock.run_for(1_000)  # the first retry waits at most 0.5 s
    expect(ann.locator("#conn")).to_have_text("● Live")
    expect(ann.locator("#bank-btn")).to_have_text("✓ You banked 8")

    kinds = [message["type"] for message in tap.sent]
    assert kinds.count("bank") == 1 and "ping" in kinds
    ids = [message.get("id") for message in tap.sent]
    assert all(isinstance(i, str) and 0 < len(i) <= 64 for i in ids), tap.sent
    assert len(set(ids)) == len(ids), "ids are never reused"


def test_a_bank_that_reaches_the_server_after_the_7_is_too_late(table: Table) -> None:
    banker, ann, tap = start_with_a_tapped_phone(table)
    for dice in ((2, 6), (1, 4), (4, 4)):
        roll(banker, *dice)
    expect_bank(ann, "21")

    tap.slow_banks = True  # Ann taps BANK on a slow network...
    bank(ann)
    expect(ann.locator("#bank-btn")).to_have_text("Banking…")
    roll(banker, 3, 4)  # ...and the 7 gets to the server first
    expect(ann.locator("#round-info")).to_have_text("Round 2 of 20")
    expect(ann.locator("#banner")).to_contain_text("Too late — the 7 came first")
    tap.release()
    expect(ann.get_by_role("alert")).to_have_text("Too late — the 7 came first.")
    expect(ann.locator(".row.me .score")).to_have_text("0")
    expect(ann.locator("#bank-btn")).to_have_text("BANK opens after the first roll")
