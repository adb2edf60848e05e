"""Screenshots of the tournament pages, from a real 16-player tournament.

    .venv/bin/python scripts/screenshots_tournament.py [--out docs/screenshots] [--chromium ...]

Starts its own server, creates a 2-game tournament (1 round per game, virtual dice),
seats 16 players at four tables, plays both games from the organiser's phone (the banker
of every table), rerolls the ties (Ann on her own phone), and writes tournament-*.png:
organiser-seating, organiser-tables, phone-reroll, tv-live, tv-reroll, tv-standings,
final, tv-final, print. It also prints the standings to an A4 PDF and checks that they
fit on one page.
"""

from __future__ import annotations

import re
import sys
import time
from pathlib import Path
from typing import Any

import httpx
from playwright.sync_api import Page, ViewportSize, expect

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from scripts.screenshots import PHONE, TV, Shots, run  # noqa: E402

TOKENS: dict[str, str] = {}
NAMES = ["Ann", "Bob", "Cy", "Dee", "Eve", "Flo", "Gus", "Hal"]
NAMES += ["Ivy", "Jo", "Kim", "Lu", "Max", "Ned", "Oz", "Pia"]
A4: ViewportSize = {"width": 794, "height": 1123}  # 210 x 297 mm at 96 px per inch
TOURNAMENT_PAGE = re.compile(r"/t/[A-Z0-9]{4}$")


def api(base: str) -> str:
    """The pages show a LAN-like name (*.localhost, which chromium resolves); httpx needs the IP."""
    return base.replace("bankit.localhost", "127.0.0.1")


def state(base: str, code: str) -> dict[str, Any]:
    result: dict[str, Any] = httpx.get(f"{api(base)}/api/tournaments/{code}").json()["state"]
    return result


def until_status(base: str, code: str, *statuses: str) -> dict[str, Any]:
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        found = state(base, code)
        if found["status"] in statuses:
            return found
        time.sleep(0.05)
    raise AssertionError(f"never {statuses}")


def play_table(organiser: Page, number: int, banks: list[list[str]]) -> None:
    """The organiser opens table `number` as its banker, starts it, rolls and banks for
    each player after the roll the plan says (rolls 1-3 never end a round)."""
    organiser.get_by_role("link", name=f"Open table {number} as its banker").click()
    organiser.get_by_role("button", name=re.compile(r"^Start the game")).click()
    last = banks[-1][-1]
    for names in banks:
        organiser.get_by_role("button", name=re.compile(r"^ROLL for ")).click()
        for name in names:
            organiser.get_by_role("button", name=f"Bank for {name}").click()
            if name != last:
                banked = re.compile(rf"^Take back {name}'s BANK")  # the banker banked for them
                expect(organiser.get_by_role("button", name=banked)).to_be_attached()
    expect(organiser).to_have_url(TOURNAMENT_PAGE)  # a finished table sends it back by itself


def plan(players: list[str], tie: bool) -> list[list[str]]:
    """Who banks after rolls 1, 2, 3. With `tie`, the whole table banks the first roll:
    the best such table ties for places that earn points, so there are rerolls."""
    if tie:
        return [players]
    return [[players[0]], [players[1]], players[2:]]


def reroll_all(
    shots: Shots, organiser: Page, tv: Page, base: str, code: str, phone: Page | None
) -> None:
    """Everyone tied rolls: the organiser for all but one, who rolls on `phone` (opened
    with that player's token) after the screenshots of its prompt."""
    while (now := state(base, code))["status"] == "reroll":
        ids = {p["id"]: p["name"] for p in now["players"]}
        groups = now["reroll"]["groups"]
        group = next(g for g in groups if any(r is None for r in g["rolls"].values()))
        todo = [pid for pid in group["players"] if group["rolls"][pid] is None]
        mine = next((pid for pid in reversed(todo) if ids[pid] in TOKENS), None)
        for pid in todo:
            name = ids[pid]
            if phone is not None and pid == mine:
                phone.goto(f"/t/{code}#token={TOKENS[name]}")
                button = phone.get_by_role("button", name="ROLL to break the tie")
                expect(button).to_be_visible()
                shots.take(phone, "tournament-phone-reroll")
                shots.take(tv, "tournament-tv-reroll")
                button.click()
                phone = None
            else:
                organiser.get_by_role("button", name=f"Roll for {name}").click()
            expect(tv.locator("#tt-feed li").first).to_have_text(re.compile(f"^{name} rolled"))


def pdf_pages(page: Page, paper: str) -> int:
    pdf = page.pdf(format=paper, print_background=False)
    return len(re.findall(rb"/Type\s*/Page[^s]", pdf))


def play(shots: Shots) -> None:
    base = shots.base
    organiser = shots.page(PHONE)
    organiser.get_by_text("Tournament (Desert Dynasty)", exact=True).click()
    organiser.get_by_label("Games").fill("2")
    organiser.get_by_label("Rounds per game").fill("1")
    organiser.get_by_text("Virtual dice", exact=True).click()
    organiser.get_by_role("button", name="Create tournament").click()
    expect(organiser.get_by_role("heading", name="Your game is ready")).to_be_visible()
    code = organiser.locator("#lobby-code").inner_text()
    tv = shots.page(TV, f"/watch/t/{code}", scale=1)
    ann = shots.page(PHONE, f"/t/{code}")
    ann.get_by_label("Your name").fill("Ann")
    ann.get_by_role("button", name="Join the game").click()
    expect(ann.get_by_role("heading", name="You're in, Ann!")).to_be_visible()
    for name in NAMES[1:]:
        joined = httpx.post(f"{api(base)}/api/tournaments/{code}/players", json={"name": name})
        TOKENS[name] = joined.raise_for_status().json()["token"]
    expect(organiser.locator("#lobby-players li")).to_have_count(16)

    organiser.get_by_role("button", name="4 tables").click()
    organiser.get_by_role("button", name="Pia, table 4: tap to sit out").click()
    organiser.get_by_role("button", name="Pia, sits out: tap to move to table 1").click()
    organiser.locator("#t-lobby-seating").scroll_into_view_if_needed()
    shots.take(organiser, "tournament-organiser-seating")
    organiser.get_by_role("button", name=re.compile(r"^Start game 1")).click()
    expect(ann).to_have_url(re.compile(r"/r/[A-Z0-9]{4}$"))

    tables = until_status(base, code, "playing")["tables"]
    organiser.get_by_role("button", name="Hand table 2 to a scorekeeper").click()
    handover = organiser.get_by_role("img", name=re.compile("^QR code: the banker's page"))
    expect(handover).to_be_visible()
    organiser.locator(".t-card[data-table='2']").scroll_into_view_if_needed()
    shots.take(organiser, "tournament-organiser-tables")
    ids = {p["id"]: p["name"] for p in state(base, code)["players"]}
    for table in tables:
        names = [ids[pid] for pid in table["players"]]
        play_table(organiser, table["table"], plan(names, tie=table["table"] > 1))
        if table["table"] == 2:
            shots.take(tv, "tournament-tv-live")
    until_status(base, code, "scoring")
    expect(ann).to_have_url(TOURNAMENT_PAGE)
    organiser.get_by_role("button", name="Score game 1").click()
    reroll_all(shots, organiser, tv, base, code, shots.page(PHONE))
    until_status(base, code, "between")
    expect(tv.locator(".standings tbody tr")).to_have_count(16)
    shots.take(tv, "tournament-tv-standings")

    organiser.get_by_role("button", name="4 tables").click()
    organiser.get_by_role("button", name=re.compile(r"^Start game 2")).click()
    tables = until_status(base, code, "playing")["tables"]
    for table in tables:
        names = [ids[pid] for pid in table["players"]]
        play_table(organiser, table["table"], plan(names, tie=False))
    until_status(base, code, "scoring")
    organiser.get_by_role("button", name="Score game 2").click()
    expect(ann).to_have_url(TOURNAMENT_PAGE)
    reroll_all(shots, organiser, tv, base, code, None)
    until_status(base, code, "finished")
    expect(ann.get_by_role("heading", name="Final standings")).to_be_visible()
    expect(tv.locator("#tt-winner")).to_be_visible()
    shots.take(ann, "tournament-final")
    shots.take(tv, "tournament-tv-final")

    paper = shots.page(A4, f"/t/{code}#token={TOKENS['Bob']}", scale=1)
    expect(paper.get_by_role("heading", name="Final standings")).to_be_visible()
    paper.emulate_media(media="print")
    shots.take(paper, "tournament-print")
    for size in ("A4", "Letter"):
        pages = pdf_pages(paper, size)
        print(f"the standings of 16 players print on {pages} {size} page(s)")
        assert pages == 1, f"the standings must fit one {size} page"


def main() -> None:
    run(play, __doc__ or "")


if __name__ == "__main__":
    main()
