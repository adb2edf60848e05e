"""The shell offers every game the server hosts, and loads each game's own pages."""

from __future__ import annotations

import re

import httpx
from playwright.sync_api import ConsoleMessage, expect

from tests.e2e.conftest import TV, Table

BUNCO_TABLE = 8  # the fewest players a Bunco night starts with: two tables of four


def test_the_home_page_offers_the_games_and_a_bunco_room_opens_its_own_pages(
    table: Table,
) -> None:
    games = httpx.get(f"{table.server.base_url}/api/games").json()
    console: list[str] = []
    host = table.open("/")
    host.on("console", lambda m: _errors(m, console))
    picker = host.get_by_role("group", name="Which game?")
    expect(picker.get_by_role("radio")).to_have_count(len(games))
    for game in games:
        expect(picker.get_by_text(game["title"], exact=True)).to_be_visible()
    expect(host.get_by_role("radio", name="BANK!")).to_be_checked()  # BANK stays the default

    host.get_by_text("Bunco", exact=True).click()
    host.get_by_label("Sets").fill("2")
    host.get_by_role("button", name="Create game").click()
    expect(host.get_by_role("heading", name="Your game is ready")).to_be_visible()
    code = host.locator("#lobby-code").inner_text()
    state = httpx.get(f"{table.server.base_url}/api/rooms/{code}").json()["state"]
    assert (state["game"], state["sets"], state["roll_entry"]) == ("bunco", 2, "virtual")
    expect(host.locator("#lobby-settings")).to_have_text(
        "2 sets of 6 rounds · the app rolls the dice"
        " · for 8, 12, 16, 20 or 24 players (tables of 4)"
    )

    tv = table.open(f"/watch/{code}", viewport=TV)
    tv.on("console", lambda m: _errors(m, console))
    for n in range(BUNCO_TABLE):
        httpx.post(
            f"{table.server.base_url}/api/rooms/{code}/players", json={"name": f"P{n}"}
        ).raise_for_status()
    expect(host.locator("#lobby-players li")).to_have_count(BUNCO_TABLE)
    expect(tv.locator("#tv-lobby-players li")).to_have_count(BUNCO_TABLE)
    host.get_by_role("button", name=f"Start the night ({BUNCO_TABLE} players, 2 tables)").click()
    for page in (host, tv):
        expect(page.get_by_role("heading", name="Set 1 of 2 · Round 1 of 6")).to_be_visible()
    expect(host.locator("#conn")).to_have_text("● Live")
    assert console == [], "console errors on the Bunco pages"


def _errors(message: ConsoleMessage, into: list[str]) -> None:
    if message.type == "error":
        into.append(message.text)


def test_a_tournament_created_at_home_has_its_lobby_at_its_own_address(table: Table) -> None:
    console: list[str] = []
    organiser = table.open("/")
    organiser.on("console", lambda m: _errors(m, console))
    organiser.get_by_text("Tournament (Desert Dynasty)", exact=True).click()
    organiser.get_by_label("Games").fill("2")
    organiser.get_by_role("button", name="Create tournament").click()
    expect(organiser.get_by_role("heading", name="Your game is ready")).to_be_visible()
    code = organiser.locator("#lobby-code").inner_text()
    assert organiser.url.endswith(f"/t/{code}")
    qr = organiser.get_by_role("img", name=f"QR code: join {table.server.base_url}/t/{code}")
    expect(qr).to_be_visible()
    expect(organiser.locator("#lobby-settings")).to_have_text(
        "2 games of 10 rounds · each table's banker enters the dice"
    )

    organiser.get_by_label("Add a player without a phone").fill("Ann")
    organiser.get_by_role("button", name="Add", exact=True).click()
    expect(organiser.locator("#lobby-players li")).to_have_text([re.compile("^Ann")])
    organiser.get_by_role("button", name="Start game 1 (1 table, 1 player)").click()
    heading = organiser.get_by_role("heading", name="Game 1 of 2")  # the tournament's own page
    expect(heading).to_be_visible()
    assert console == [], "console errors on the tournament pages"
