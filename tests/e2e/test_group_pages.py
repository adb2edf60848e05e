"""A group's pages in Chromium: a member's phone (390x844) and the TV (1280x720) show the
season, pass axe (WCAG 2.2 AA) and reflow; one tap seats a member in the group's new
game as themselves, and its result reaches the TV live (announced to screen readers);
the join and create pages pass axe too."""

from __future__ import annotations

import httpx
import pytest
from playwright.sync_api import Browser, Page, expect

from tests.conftest import ServerProcess
from tests.e2e.axe import axe_results, names_not_starting_with_their_words
from tests.e2e.group_night import TV, finish_game, phone, played_night
from tests.e2e.test_axe import REFLOW

pytestmark = pytest.mark.e2e


def passes_axe(page: Page, what: str) -> None:
    found = axe_results(page)
    assert found.violations_count == 0, f"{what}:\n{found.generate_report()}"
    assert names_not_starting_with_their_words(page) == [], what
    reflow = page.evaluate(REFLOW)
    assert reflow["wide"] == [] and reflow["hidden"] == [], f"{what}: {reflow}"


def test_the_group_pages_show_the_season_and_seat_a_member_with_one_tap(
    browser: Browser, server: ServerProcess
) -> None:
    night = played_night(server.base_url, server.ws_url)
    ann_id, ann_token = night.members["Ann"]
    errors: list[str] = []
    membership = {"token": ann_token, "member_id": ann_id, "name": "Ann"}
    context, page = phone(browser, server.base_url, f"/g/{night.code}", membership, night.code)
    page.on("pageerror", lambda error: errors.append(str(error)))
    bank = page.locator("table.standings", has=page.locator("caption", has_text="BANK!"))
    expect(bank.locator("tbody tr")).to_have_count(2)
    expect(bank.locator("tbody tr").first.locator("th")).to_have_text("Bob")  # banked 30
    expect(page.locator(".g-lines li")).to_contain_text("Gus (guest)")
    expect(page.locator("#g-who")).to_contain_text("You are Ann")
    passes_axe(page, "the member's phone page")

    started = httpx.post(
        f"{server.base_url}/api/groups/{night.code}/games",
        json={"game": "bank", "options": {"rounds": 1}},
        headers={"Authorization": f"Bearer {night.host_token}"},
    )
    assert started.status_code == 202, started.text
    page.get_by_role("button", name="Play as Ann").click()  # shown live, by the socket
    page.wait_for_url("**/r/*")
    game = page.url.rsplit("/", 1)[1]
    players = httpx.get(f"{server.base_url}/api/rooms/{game}").json()["state"]["players"]
    assert [(p["id"], p["name"]) for p in players] == [(ann_id, "Ann")], "seated as herself"
    context.close()

    context, tv = phone(browser, server.base_url, f"/watch/g/{night.code}", viewport=TV)
    tv.on("pageerror", lambda error: errors.append(str(error)))
    expect(tv.locator("#g-title")).to_have_text("Thursday club · season 1")
    expect(tv.locator("table.standings")).to_have_count(2)  # overall and BANK!
    passes_axe(tv, "the TV page")
    finish_game(server.ws_url, game, night.host_token, ann_id)  # Ann's game, while it shows
    expect(tv.locator("#g-announce")).to_have_text(f"BANK! {game} recorded: won by Ann.")
    overall = tv.locator("table.standings", has=tv.locator("caption", has_text="Overall"))
    expect(overall.locator("tbody tr", has_text="Ann")).to_have_text("Ann21")  # 2 games, 1 win
    context.close()

    host = {"host_token": night.host_token}
    context, page = phone(browser, server.base_url, f"/g/{night.code}", host, night.code)
    expect(page.locator("#g-host")).to_be_visible()
    expect(page.locator("#g-join")).to_be_visible()  # the host may join as a member too
    passes_axe(page, "the host's phone page")
    context.close()

    context, page = phone(browser, server.base_url, "/g")
    page.locator("#g-new-name").fill("Bunco babes")
    page.get_by_role("button", name="Create the group").click()
    page.wait_for_url("**/g/*")
    expect(page.locator("#g-title")).to_have_text("Bunco babes")
    passes_axe(page, "a new group's page")
    context.close()
    assert errors == []
