"""A tournament run from phones: the organiser seats and scores, three players play their
table and reroll a tie live on their own phones, a TV shows it all, then the standings."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from typing import Any

import httpx
import pytest
from playwright.sync_api import Page, expect

from tests.e2e.conftest import PHONE, TV, Table
from tests.e2e.people import bank, bank_for, roll
from tests.e2e.test_phone import audit

pytestmark = pytest.mark.e2e

DESKTOP = {"width": 1280, "height": 800}
TABLE_PAGE = re.compile(r"/r/[A-Z0-9]{4}$")
BACK = re.compile(r"^Tournament \w+ \(back from game")
TV_FEED, PHONE_FEED = 8, 24  # the newest rerolls the TV and the phones list


def until(check: Callable[[], Any], what: str, timeout: float = 10) -> Any:
    """Poll `check` until it returns something truthy (bounded)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = check()
        if found:
            return found
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def create_tournament(organiser: Page, games: int = 2, entry: str = "Virtual dice") -> str:
    """On the home page: a tournament of `games` games of one round each."""
    organiser.get_by_text("Tournament (Desert Dynasty)", exact=True).click()
    organiser.get_by_label("Games").fill(str(games))
    organiser.get_by_label("Rounds per game").fill("1")
    organiser.get_by_text(entry, exact=True).click()
    organiser.get_by_role("button", name="Create tournament").click()
    expect(organiser.get_by_role("heading", name="Your game is ready")).to_be_visible()
    return organiser.locator("#lobby-code").inner_text()


def join(phone: Page, code: str, name: str) -> None:
    """A phone that scanned the tournament's QR code: /t/CODE, a name, one tap."""
    phone.goto(f"/t/{code}")
    phone.get_by_label("Your name").fill(name)
    phone.get_by_role("button", name="Join the game").click()
    expect(phone.get_by_role("heading", name=f"You're in, {name}!")).to_be_visible()


def on_a_phone(page: Page, where: str) -> None:
    """The same view on a 360x640 phone, audited, then back to the desktop."""
    page.set_viewport_size(PHONE)
    audit(page, where)
    page.set_viewport_size(DESKTOP)  # type: ignore[arg-type]


def test_an_organiser_three_phones_and_a_tv_play_a_game_with_a_live_reroll(
    table: Table,
) -> None:
    base = table.server.base_url
    organiser = table.open("/", viewport=DESKTOP)  # type: ignore[arg-type]
    code = create_tournament(organiser)
    state = lambda: httpx.get(f"{base}/api/tournaments/{code}").json()["state"]  # noqa: E731
    tv = table.open(f"/watch/t/{code}", viewport=TV)
    phones = {name: table.open("/", viewport=PHONE) for name in ("Ann", "Bob", "Cy")}
    for name, phone in phones.items():
        join(phone, code, name)
    ids = {p["name"]: p["id"] for p in state()["players"]}

    # Seating in the lobby: one table by default; two tables split the roster; back to one.
    start = organiser.locator("#start-btn")
    expect(start).to_have_text("Start game 1 (1 table, 3 players)")
    organiser.get_by_role("button", name="2 tables").click()
    seats = organiser.locator("#t-lobby-seating")
    expect(seats.locator("[data-table='1'] .seat")).to_have_text(["Ann", "Bob"])
    expect(seats.locator("[data-table='2'] .seat")).to_have_text(["Cy"])
    expect(start).to_have_text("Start game 1 (2 tables, 3 players)")
    organiser.get_by_role("button", name="Cy, table 2: tap to sit out").click()
    expect(seats.locator("[data-table='0'] .seat")).to_have_text(["Cy"])
    expect(start).to_have_text("Table 2 has nobody: move someone there")
    expect(start).to_be_disabled()
    organiser.get_by_role("button", name="1 table").click()
    expect(start).to_have_text("Start game 1 (1 table, 3 players)")
    audit(organiser, "organiser's lobby with its seating (desktop)")
    on_a_phone(organiser, "organiser's lobby with its seating (360x640)")
    start.click()

    # Each phone is sent to its table's player page, its own seat there, no re-join.
    table_code = until(lambda: state()["tables"] and state()["tables"][0]["code"], "the table")
    for name, phone in phones.items():
        expect(phone).to_have_url(f"{base}/r/{table_code}")
        expect(phone.get_by_role("heading", name=f"You're in, {name}!")).to_be_visible()
        expect(phone.get_by_role("link", name=BACK)).to_be_visible()
    audit(phones["Ann"], "a player's table lobby, with the way back")
    expect(organiser.get_by_role("heading", name="Game 1 of 2")).to_be_visible()
    expect(tv.locator("#tt-tables [data-table='1']")).to_contain_text("Table 1")
    audit(tv, "TV while the tables play")

    # A second scorekeeper's banker link (a QR code), checked on a phone of its own.
    organiser.get_by_role("button", name="Hand table 1 to a scorekeeper").click()
    handover = organiser.get_by_role("img", name=re.compile("^QR code: the banker's page"))
    expect(handover).to_be_visible()
    link = organiser.locator(".handover-link").inner_text()
    assert link.startswith(f"{base}/r/{table_code}#token=")
    token = link.split("#token=")[1]
    qr = httpx.post(f"{base}/api/rooms/{table_code}/seat-qr.svg", json={"token": token})
    assert qr.status_code == 200 and qr.headers["cache-control"] == "no-store"
    audit(organiser, "organiser during the game (desktop)")
    on_a_phone(organiser, "organiser during the game (360x640)")
    keeper = table.open(link)
    expect(keeper.get_by_role("heading", name="Your game is ready")).to_be_visible()
    assert "#token" not in keeper.url, "the token is taken out of the address"

    # The organiser is the table's banker: it starts it and rolls; Ann and Bob bank the
    # first roll (a tie), Cy banks after the second (more: every roll adds 2 or more).
    organiser.get_by_role("link", name="Open table 1 as its banker").click()
    expect(organiser).to_have_url(f"{base}/r/{table_code}")
    table_tv = table.open(f"/watch/{table_code}", viewport=TV)  # a TV that watched the table
    organiser.get_by_role("button", name="Start the game (3 players)").click()
    organiser.get_by_role("button", name="ROLL for Ann").click()
    bank(phones["Ann"])
    bank(phones["Bob"])
    organiser.get_by_role("button", name="ROLL for Cy").click()
    expect(phones["Cy"].locator("#bank-btn")).to_be_enabled()
    bank(phones["Cy"])
    until(lambda: state()["status"] == "scoring", "every table finished")

    # The table is over: no "Play again" there; every phone, the organiser and the TV go
    # back to the tournament by themselves, where the places and points are.
    expect(organiser.locator("#final-wait")).to_have_text(
        f"Back to tournament {code} in a moment: the places and points are there."
    )
    expect(organiser.locator("#again-box")).to_be_hidden()
    for phone in phones.values():
        expect(phone).to_have_url(f"{base}/t/{code}")
        expect(phone.locator("#t-line")).to_have_text(
            re.compile(r"You play at table 1 with .*Waiting for the organiser to score game 1\.")
        )
    expect(table_tv).to_have_url(f"{base}/watch/t/{code}")
    audit(phones["Cy"], "a player waiting for the score (360x640)")
    expect(organiser).to_have_url(f"{base}/t/{code}")
    organiser.get_by_role("button", name="Score game 1").click()

    # The tie is rerolled live: the tied phones are asked, everyone sees each roll land.
    expect(tv.locator("#tt-reroll")).to_contain_text("Tie for 2nd–3rd: Ann and Bob")
    expect(phones["Cy"].locator("#t-prompt")).to_have_text(
        "You are in no tie: watch the rerolls land."
    )
    audit(phones["Ann"], "a player asked to reroll (360x640)")
    audit(tv, "TV during the rerolls")
    audit(organiser, "organiser during the rerolls (desktop)")
    rolled = 0
    cy_feed, ann_feed = phones["Cy"].locator("#t-feed"), phones["Ann"].locator("#t-feed li")
    while state()["status"] == "reroll":
        for name in ("Ann", "Bob"):
            phones[name].get_by_role("button", name="ROLL to break the tie").click()
            rolled += 1
            for watcher, cap in ((tv.locator("#tt-feed"), TV_FEED), (cy_feed, PHONE_FEED)):
                expect(watcher.locator("li")).to_have_count(min(rolled, cap))
                expect(watcher.locator("li").first).to_have_text(re.compile(f"^{name} rolled \\d"))
        assert rolled < 40, "fair dice tie 20 times in a row once in 10^19"
        until(
            lambda: (
                state()["status"] != "reroll"
                or not any(r for g in state()["reroll"]["groups"] for r in g["rolls"].values())
            ),
            "the pair rolled out",
        )

    # Standings everywhere: Cy 1st, the reroll's winner 2nd, with the rerolls listed.
    final = state()
    assert final["status"] == "between"
    places = final["results"][0]["places"]
    assert places[ids["Cy"]] == 1 and sorted([places[ids["Ann"]], places[ids["Bob"]]]) == [2, 3]
    second = "Ann" if places[ids["Ann"]] == 2 else "Bob"
    for page in (*phones.values(), organiser):
        expect(page.get_by_role("heading", name="After game 1 of 2")).to_be_visible()
        rows = page.locator(".standings tbody tr")
        expect(rows).to_have_count(3)
        expect(rows.first).to_contain_text("Cy")
        expect(rows.nth(1)).to_contain_text(second)
    expect(tv.locator(".standings tbody tr").first).to_contain_text("Cy")
    expect(tv.locator("#tt-last")).to_contain_text("1st Cy (")
    for watcher, cap in ((tv.locator("#tt-feed li"), TV_FEED), (ann_feed, PHONE_FEED)):
        expect(watcher).to_have_count(min(rolled, cap))  # the rerolls stay listed under the result
    expect(phones["Ann"].locator("#t-csv")).to_have_attribute(
        "href", f"/api/tournaments/{code}/scoresheet.csv"
    )
    next_game = organiser.get_by_role("button", name="Start game 2 (1 table, 3 players)")
    expect(next_game).to_be_enabled()
    audit(organiser, "organiser seating game 2 (desktop)")
    on_a_phone(organiser, "organiser seating game 2 (360x640)")
    audit(phones["Bob"], "player's standings (360x640)")
    audit(tv, "TV standings")

    # The home page's "Watch on a TV" takes a tournament's code to the tournament's TV page.
    home = table.open("/", viewport=PHONE)
    home.get_by_label("Room code").fill(code)
    home.get_by_role("link", name="Watch on a TV instead").click()
    expect(home).to_have_url(f"{base}/watch/t/{code}")
    expect(home.locator("#tv-kind")).to_have_text("Tournament")


def test_in_banker_mode_the_organiser_enters_each_tied_players_reroll(table: Table) -> None:
    base = table.server.base_url
    organiser = table.open("/", viewport=PHONE)
    code = create_tournament(organiser, games=1, entry="The banker")
    for name in ("Ann", "Bob"):
        httpx.post(f"{base}/api/tournaments/{code}/players", json={"name": name}).raise_for_status()
    organiser.get_by_role("button", name="Start game 1 (1 table, 2 players)").click()
    organiser.get_by_role("link", name="Open table 1 as its banker").click()
    organiser.get_by_role("button", name="Start the game (2 players)").click()
    roll(organiser, 2, 3)
    bank_for(organiser, "Ann")
    bank_for(organiser, "Bob")  # 5 each: a tie for 1st-2nd
    expect(organiser).to_have_url(f"{base}/t/{code}")  # back by itself
    organiser.get_by_role("button", name="Score game 1").click()

    expect(organiser.locator("#t-groups")).to_have_text(re.compile("^Tie for 1st–2nd: Ann and Bob"))
    audit(organiser, "organiser entering rerolls (360x640)")
    enter = organiser.get_by_role("button", name=re.compile("^Enter Ann's roll"))
    expect(enter).to_be_disabled()  # two dice first
    organiser.get_by_role("button", name="Ann: first die 6").click()
    organiser.get_by_role("button", name="Ann: second die 5").click()
    organiser.get_by_role("button", name="Enter Ann's roll: 6 + 5").click()
    expect(organiser.locator("#t-groups")).to_contain_text("Ann rolled 6 + 5 = 11")
    organiser.get_by_role("button", name="Bob: first die 5").click()
    organiser.get_by_role("button", name="Bob: second die 6").click()
    organiser.get_by_role("button", name="Enter Bob's roll: 5 + 6").click()
    again = organiser.locator("#t-again")  # 11 and 11: the reroll ties again, and says so
    expect(again).to_have_text("Tied again! Ann and Bob roll again for 1st–2nd.")
    expect(organiser.locator("#say-now")).to_contain_text("Tied again!")
    organiser.get_by_role("button", name="Ann: first die 6").click()
    organiser.get_by_role("button", name="Ann: second die 5").click()
    organiser.get_by_role("button", name="Enter Ann's roll: 6 + 5").click()
    expect(again).to_be_hidden()
    organiser.get_by_role("button", name="Bob: first die 1").click()
    organiser.get_by_role("button", name="Bob: second die 2").click()
    organiser.get_by_role("button", name="Enter Bob's roll: 1 + 2").click()

    expect(organiser.locator("#t-winner")).to_have_text("★ Ann wins the tournament!")
    expect(organiser.locator("#t-feed li")).to_have_text(
        [
            "Bob rolled 1 + 2 = 3",
            "Ann rolled 6 + 5 = 11",
            "Bob rolled 5 + 6 = 11",
            "Ann rolled 6 + 5 = 11",
        ]
    )
    state = httpx.get(f"{base}/api/tournaments/{code}").json()["state"]
    ids = {p["name"]: p["id"] for p in state["players"]}
    assert state["results"][0]["places"] == {ids["Ann"]: 1, ids["Bob"]: 2}
    audit(organiser, "final standings (360x640)")
