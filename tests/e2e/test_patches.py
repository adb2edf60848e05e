"""The pages take states as patches (docs/protocol.md, an extension): Chromium's phone
asks for them, applies them, and recovers from a lost one by asking for the whole state."""

from __future__ import annotations

import json
import re

import pytest
from playwright.sync_api import WebSocketRoute, expect

from tests.e2e.conftest import Table
from tests.e2e.people import bank, expect_bank, roll
from tests.e2e.test_reconnect import start_a_game

pytestmark = pytest.mark.e2e


class Tap:
    """Between the phone and the server: every message seen; `lose` drops the next patch."""

    def __init__(self) -> None:
        self.received: list[dict[str, object]] = []
        self.sent: list[dict[str, object]] = []
        self.lose = False

    def route(self, ws: WebSocketRoute) -> None:
        assert "patches=1" in ws.url, "the page asks for patches"
        server = ws.connect_to_server()
        ws.on_message(lambda message: self.up(server, message))
        server.on_message(lambda message: self.down(ws, message))

    def up(self, server: WebSocketRoute, message: str | bytes) -> None:
        self.sent.append(json.loads(message))
        server.send(message)

    def down(self, page: WebSocketRoute, message: str | bytes) -> None:
        decoded = json.loads(message)
        self.received.append(decoded)
        if self.lose and decoded["type"] == "patch":
            self.lose = False
            return  # lost on the way: the next patch does not fit
        page.send(message)

    def kinds(self, kind: str) -> int:
        return sum(m["type"] == kind for m in self.received)


def test_a_phone_plays_on_patches_and_a_lost_one_brings_the_whole_state(table: Table) -> None:
    _code, banker, (ann, _bob) = start_a_game(table, "Ann", "Bob")
    tap = Tap()
    ann.route_web_socket(re.compile(r"/ws/rooms/"), tap.route)
    ann.reload()
    expect(ann.locator("#conn")).to_have_text("● Live")
    roll(banker, 1, 2)
    expect_bank(ann, "3")  # the first state after a welcome comes whole
    roll(banker, 2, 3)
    expect_bank(ann, "8")
    roll(banker, 4, 5)
    expect_bank(ann, "17")
    assert tap.kinds("patch") >= 2, tap.received
    assert not [m for m in tap.sent if m["type"] == "sync"], "every patch fitted"

    tap.lose = True
    roll(banker, 2, 2)  # doubles: 34; its patch is lost on the way
    expect_bank(banker, "34")
    expect_bank(ann, "17")
    roll(banker, 5, 6)  # 45: this patch does not fit what the phone has
    expect_bank(ann, "45")
    assert [m for m in tap.sent if m["type"] == "sync"], "the phone asked for the whole state"
    bank(ann)
    expect(ann.locator("#bank-btn")).to_have_text("✓ You banked 45")
    expect(banker.locator(".row", has_text="Ann")).to_contain_text("✓ banked 45")
