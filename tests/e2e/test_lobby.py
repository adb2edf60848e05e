"""Getting into a game: codes, names, the banker's lobby controls, arriving late."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.e2e.conftest import Table
from tests.e2e.people import create_game, join_by_code, join_by_link

pytestmark = pytest.mark.e2e


def test_join_mistakes_are_explained_in_plain_words(table: Table) -> None:
    banker = table.open("/")
    code = create_game(banker)
    ann = table.open("/")
    join_by_code(ann, code, "Ann")

    again = table.open("/")
    again.get_by_label("Room code").fill("OOOO")
    again.get_by_label("Your name").fill("Zed")
    again.get_by_role("button", name="Join", exact=True).click()
    expect(again.get_by_role("alert").filter(has_text="no O, 0, I, 1 or L")).to_be_visible()

    unknown = "Z" if code[0] != "Z" else "Y"
    again.get_by_label("Room code").fill(unknown * 4)
    again.get_by_role("button", name="Join", exact=True).click()
    expect(again.locator("#join-error")).to_have_text(
        "There is no game with that code. Check the letters with the banker."
    )

    twin = table.open(f"/r/{code}")
    twin.get_by_label("Your name").fill("  ANN ")
    twin.get_by_role("button", name="Join the game").click()
    expect(twin.locator("#join-error")).to_contain_text("That name is taken")
    expect(banker.locator("#lobby-players li")).to_have_count(1)


def test_the_banker_removes_a_player_and_the_phone_is_told(table: Table) -> None:
    banker = table.open("/")
    code = create_game(banker)
    bob = table.open("/")
    join_by_link(bob, code, "Bob")
    expect(banker.locator("#lobby-players li", has_text="Bob")).to_contain_text("● here")
    expect(banker.get_by_role("button", name="Start the game (1 player)")).to_be_enabled()
    expect(banker.locator("#lobby-local")).to_contain_text("Phones cannot reach “127.0.0.1”")

    banker.get_by_role("button", name="Remove Bob").click()
    expect(banker.locator("#lobby-players")).to_contain_text("Nobody yet")
    expect(banker.get_by_role("button", name="Start the game")).to_be_disabled()
    expect(bob.locator("#join-error")).to_contain_text("You are no longer in this game")
    assert bob.evaluate(f"localStorage.getItem('bankit:seat:{code}')") is None

    join_by_link(bob, code, "Bob")  # the name is free again, and so is the seat
    expect(banker.locator("#lobby-players li")).to_have_text([re.compile("^Bob")])


def test_a_phone_arriving_after_the_start_is_offered_the_tv_view(table: Table) -> None:
    banker = table.open("/")
    code = create_game(banker)
    ann = table.open("/")
    join_by_link(ann, code, "Ann")
    banker.get_by_role("button", name=re.compile("^Start the game")).click()
    expect(ann.locator("#round-info")).to_have_text("Round 1 of 20")

    late = table.open(f"/r/{code.lower()}")
    # Told at once, before typing a name, that only the banker can seat them now.
    expect(late.get_by_text("This game has already started.")).to_be_visible()
    expect(late.get_by_label("Your name")).to_be_hidden()
    late.get_by_role("link", name="Open the TV view").click()
    expect(late.locator("#tv-round")).to_have_text("Round 1 of 20")
    expect(late.locator("#tv-board .name")).to_have_text(["Ann"])


def test_an_unknown_room_says_so(table: Table) -> None:
    tv = table.open("/watch/ZZZZ")
    expect(tv.locator("#tv-gone-text")).to_have_text(
        "Game ZZZZ is not on this server any more. It may have ended a while ago."
    )
    phone = table.open("/r/not-a-code")
    expect(phone.locator("#gone-text")).to_have_text("That address has no valid room code in it.")
