"""Issue 30: every line on every screen follows the game's real rules and state. Each test
drives a room over HTTP and a socket of its own, then reads what a phone or the TV says."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.e2e.conftest import TV, Table
from tests.e2e.gallery import Made

pytestmark = pytest.mark.e2e


def bunco_after_one_round(table: Table, movement: str) -> Made:
    """An 8-player Bunco night (two tables) after its first round: the Low table scored 2,
    then a Bunco at High rang the bell."""
    night = Made.create(
        table.server.base_url, "rooms", game="bunco", roll_entry="banker", movement=movement
    )
    night.join(*(f"P{n}" for n in range(8)))
    night.send(
        {"type": "start"},
        {"type": "roll", "table": 1, "dice": [1, 1, 2]},
        {"type": "roll", "table": 0, "dice": [1, 1, 1]},
    )
    return night


@pytest.mark.parametrize(
    ("movement", "high_winners", "high_losers"),
    [
        ("seed", "won at High: go to Low", "stay at High"),
        ("common", "won at High: stay at High", "lost at High: go to Low"),
    ],
)
def test_the_bunco_tv_says_who_moves_where_under_either_movement(
    table: Table, movement: str, high_winners: str, high_losers: str
) -> None:
    night = bunco_after_one_round(table, movement)
    state = night.state()
    named = {p["id"]: p["name"] for p in state["players"]}
    sits = {pid: t["name"] for t in state["tables"] for pid in t["seats"]}
    high, low = state["rounds_log"][-1]["tables"]

    def pair(ids: list[str]) -> str:
        return " and ".join(named[i] for i in ids)

    said = {
        pair(high["winners"]): f"★ {pair(high['winners'])} {high_winners}",
        pair(high["losers"]): f"{pair(high['losers'])} {high_losers}",
        pair(low["winners"]): f"★ {pair(low['winners'])} won at Low: go to High",
        pair(low["losers"]): f"{pair(low['losers'])} stay at Low",
    }
    for side in (high["winners"], high["losers"], low["winners"], low["losers"]):
        assert said[pair(side)].endswith(sits[side[0]])  # the server seated them there
    tv = table.open(f"/watch/{night.code}", viewport=TV)
    expect(tv.locator("#tv-moves li")).to_have_text(list(said.values()))
