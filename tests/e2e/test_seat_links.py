"""A seat link (`/r/CODE#token=...`) never costs a phone the seat it holds (issue 19).

A link's token is saved only once the server welcomed it; a garbage link sent to the
banker leaves the banker's seat as it was; a phone holding another seat in that room
is asked before it switches.
"""

from __future__ import annotations

import json

import httpx
import pytest
from playwright.sync_api import Dialog, Page, expect

from tests.e2e.conftest import Table
from tests.e2e.people import create_game, join_by_link

pytestmark = pytest.mark.e2e


def saved_token(page: Page, code: str) -> str | None:
    raw = page.evaluate(f"localStorage.getItem('bankit:seat:{code}')")
    return json.loads(raw)["token"] if raw else None


def test_a_garbage_seat_link_leaves_the_bankers_seat(table: Table) -> None:
    banker = table.open("/")
    code = create_game(banker)
    token = saved_token(banker, code)
    assert token is not None
    banker.once("dialog", lambda dialog: dialog.accept())  # even talked into switching
    banker.goto(f"/r/{code}#token=garbage-garbage-garbage")
    expect(banker.locator("#toast")).to_contain_text("you keep your seat")
    expect(banker.get_by_role("heading", name="Your game is ready")).to_be_visible()
    assert saved_token(banker, code) == token
    assert "#token" not in banker.url


def test_a_phone_with_a_seat_is_asked_before_it_switches(table: Table) -> None:
    banker = table.open("/")
    code = create_game(banker)
    ann = table.open("/")
    join_by_link(ann, code, "Ann")
    ann_token = saved_token(ann, code)
    bob = httpx.post(f"{table.server.base_url}/api/rooms/{code}/players", json={"name": "Bob"})
    bob_token = bob.json()["token"]
    asked: list[str] = []

    def until_asked(times: int) -> None:
        """The link's hash may be read a moment after the page shows the old seat."""
        for _ in range(100):
            if len(asked) >= times:
                return
            ann.wait_for_timeout(100)

    def answer(accept: bool) -> None:
        def on_dialog(dialog: Dialog) -> None:
            asked.append(dialog.message)
            dialog.accept() if accept else dialog.dismiss()

        ann.once("dialog", on_dialog)

    answer(False)
    ann.goto(f"/r/{code}#token={bob_token}")
    until_asked(1)
    expect(ann.get_by_role("heading", name="You're in, Ann!")).to_be_visible()
    assert asked and asked[0].startswith("Switch to this seat?")
    assert saved_token(ann, code) == ann_token

    answer(True)
    ann.goto(f"/r/{code}#token={bob_token}")
    until_asked(2)
    expect(ann.get_by_role("heading", name="You're in, Bob!")).to_be_visible()
    assert len(asked) == 2 and saved_token(ann, code) == bob_token
