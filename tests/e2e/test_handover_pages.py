"""Hand-over on the phone pages, at 360x640 and on a laptop: the banker moves a seat and
its own role to other phones by QR code/link, and when the banker's phone is gone the
players see "The banker has been away for 2 minutes: take over?" and take it back (the
shared server lets a table choose after 1 s: BANKIT_HOST_AWAY_SECONDS). After each
hand-over every phone is told what happened, and a card that appears takes the focus."""

from __future__ import annotations

import re
import time

import pytest
from playwright.sync_api import Page, ViewportSize, expect

from tests.e2e.axe import axe_results, names_not_starting_with_their_words
from tests.e2e.conftest import PHONE, Table
from tests.e2e.people import bank, create_game, expect_bank, join_by_link, roll
from tests.e2e.test_phone import audit

pytestmark = pytest.mark.e2e

LAPTOP: ViewportSize = {"width": 1366, "height": 768}
SIZES = [pytest.param(PHONE, id="phone"), pytest.param(LAPTOP, id="laptop")]


def accessible(page: Page, where: str) -> None:
    """axe-core (WCAG 2.2 A/AA and the experimental rules: tests/e2e/axe.py) finds no
    violation in the hand-over's own parts (the rest of the page is the pages' tests' to
    check), every name starts with its words, and the project's own audit holds."""
    ours = [
        sel
        for sel in (
            "#takeover",
            "#handover-open",
            "#handover-dialog",
            "#handover-note",
            "#view-gone",
        )
        if page.locator(sel).is_visible()
    ]
    results = axe_results(page, {"include": [[sel] for sel in ours]})
    assert results.violations_count == 0, f"{where}: {results.generate_report()}"
    assert names_not_starting_with_their_words(page) == [], where
    audit(page, where)


def focused(page: Page, selector: str) -> None:
    """The card's heading has the focus, and the card is in view."""
    expect(page.locator(selector)).to_be_focused()
    expect(page.locator(selector)).to_be_in_viewport()


def vote_once_the_server_counts_the_banker_away(page: Page, button: str) -> None:
    """The page's clock was moved on, the server's was not: until the banker has been
    away BANKIT_HOST_AWAY_SECONDS by the server's clock, a vote is refused (and said so)."""
    status = page.locator("#takeover-status")
    deadline = time.monotonic() + 15
    while True:
        page.get_by_role("button", name=button).click()
        expect(status).not_to_have_text("")
        if status.inner_text() == "Your vote is in.":
            return
        expect(status).to_contain_text("may choose after")
        assert time.monotonic() < deadline, "the server never counted the banker away"


def link_of(page: Page) -> str:
    href = page.locator("#handover-link").get_attribute("href")
    assert href and "#token=" in href
    return href


@pytest.mark.parametrize("size", SIZES)
def test_the_banker_moves_a_seat_and_its_role_to_other_phones(
    table: Table, size: ViewportSize
) -> None:
    banker = table.open("/", size)
    code = create_game(banker)
    ann = table.open("/", size)
    join_by_link(ann, code, "Ann")
    banker.get_by_label("Add a player without a phone").fill("Bob")  # the round goes on
    banker.get_by_role("button", name="Add", exact=True).click()
    expect(banker.locator("#lobby-players li", has_text="Bob")).to_be_visible()
    banker.get_by_role("button", name=re.compile("^Start the game")).click()
    roll(banker, 3, 4)
    expect_bank(ann, "70")

    banker.get_by_role("button", name="Hand over: banker role or a player's phone").click()
    dialog = banker.get_by_role("dialog", name="Hand over")
    expect(dialog).to_be_visible()
    accessible(banker, "banker's hand-over dialog")
    dialog.get_by_role("button", name="Move Ann's seat to another phone").click()
    expect(banker.locator("#handover-qr")).to_have_attribute(
        "alt", f"QR code: Ann's seat in game {code}"
    )
    accessible(banker, "a seat's QR code")
    seat_link = link_of(banker)
    banker.get_by_role("button", name="Close").click()

    new_ann = table.open("/", size)
    new_ann.goto(seat_link)
    expect_bank(new_ann, "70")
    expect(new_ann.get_by_role("heading", name="This phone holds Ann's seat now")).to_be_visible()
    focused(new_ann, "#handover-note-title")
    accessible(new_ann, "the moved seat's new phone")
    moved = ann.get_by_text("Your seat moved to another phone: play on there.")
    expect(moved).to_be_visible()  # the old phone
    expect(ann.get_by_role("heading", name="Your seat moved")).to_be_visible()
    accessible(ann, "the moved seat's old phone")
    bank(new_ann)
    expect(new_ann.locator("#bank-btn")).to_have_text("✓ You banked 70")

    banker.get_by_role("button", name="Hand over: banker role or a player's phone").click()
    banker.get_by_role("button", name="Show a QR code for the banker role").click()
    expect(banker.get_by_text("This phone is no longer the banker.")).to_be_visible()
    role_link = link_of(banker)
    new_banker = table.open("/", size)
    new_banker.goto(role_link)
    expect(new_banker.get_by_role("heading", name="You are the banker now")).to_be_visible()
    focused(new_banker, "#handover-note-title")
    roll(new_banker, 2, 2)
    expect_bank(new_ann, "74")
    banker.get_by_role("button", name="Close").click()
    expect(banker.get_by_text("This phone handed its role to another phone")).to_be_visible()


@pytest.mark.parametrize("size", SIZES)
def test_the_table_takes_the_banker_role_back_when_the_banker_is_away(
    table: Table, size: ViewportSize
) -> None:
    banker = table.open("/", size)
    code = create_game(banker)
    players = {}
    for name in ("Ann", "Bob"):
        page = table.open("/", size)
        page.clock.install()  # the page notices "away for 2 minutes" by its own clock
        join_by_link(page, code, name)
        players[name] = page
    ann, bob = players["Ann"], players["Bob"]
    banker.get_by_role("button", name=re.compile("^Start the game")).click()
    roll(banker, 6, 1)
    expect_bank(ann, "70")
    banker.context.close()  # the banker's phone dies

    for page in (ann, bob):
        expect(page.locator("body")).to_have_attribute("data-host", "away")
        page.clock.fast_forward("02:10")
    away = "The banker has been away for 2 minutes: take over?"
    for page in (ann, bob):
        expect(page.get_by_role("heading", name=away)).to_be_visible()
        focused(page, "#takeover-title")  # on every phone, in view and focused
    accessible(ann, "a player's take-over card")
    vote_once_the_server_counts_the_banker_away(ann, "I'll be the banker (0 of 2)")
    bob.get_by_role("button", name="Ann should be the banker (1 of 2)").click()

    heading = ann.get_by_role("heading", name="The table chose you as the banker")
    expect(heading).to_be_visible()
    accessible(ann, "a player chosen as the banker")
    ann.get_by_role("button", name="Become the banker").click()
    expect(ann.get_by_role("heading", name="You are the banker now")).to_be_visible()
    focused(ann, "#handover-note-title")
    accessible(ann, "the new banker")
    roll(ann, 5, 5)
    expect_bank(bob, "80")
    expect(bob.locator("#takeover")).to_be_hidden()
    expect(bob.locator(".tag.away")).to_have_count(0)  # Ann plays on from the banker's phone


def test_the_banker_offers_its_role_and_each_phone_is_told(table: Table) -> None:
    banker = table.open("/", PHONE)
    code = create_game(banker)
    ann, bob = table.open("/", PHONE), table.open("/", PHONE)
    join_by_link(ann, code, "Ann")
    join_by_link(bob, code, "Bob")
    banker.get_by_role("button", name=re.compile("^Start the game")).click()
    roll(banker, 6, 1)
    expect_bank(ann, "70")

    banker.get_by_role("button", name="Hand over: banker role or a player's phone").click()
    banker.get_by_role("button", name="Offer it to Ann").click()
    offered = ann.get_by_role("heading", name="The banker offers you the banker role")
    expect(offered).to_be_visible()
    focused(ann, "#takeover-title")  # the card came into view and took the focus
    accessible(ann, "a player offered the role")
    ann.get_by_role("button", name="Become the banker").click()

    expect(banker.get_by_text("You handed the banker role to Ann")).to_be_visible()
    expect(banker.get_by_role("heading", name="Handed over")).to_be_visible()
    expect(banker).to_have_title(re.compile(r"^Handed over · "))  # not "… not found"
    expect(banker.locator("#handover-open")).to_be_hidden()  # nothing left to hand over
    accessible(banker, "the old banker")
    expect(ann.get_by_role("heading", name="You are the banker now")).to_be_visible()
    roll(ann, 4, 4)
    expect_bank(bob, "78")
    expect(bob.locator(".tag.away")).to_have_count(0)  # Ann's seat is not "offline"
