"""16 players at two tables per game, ranked all together: cross-table rerolls, shared places.

2 games of 3 rounds, `banker` entry. As in tests/games/tournament/support.py, rounds 1..2 give
everyone 10 each (20), and in round 3 a player banks after roll 1, 2, 3, 4 or 5
(10, 20, 30, 60, 70) or never (0): totals 30, 40, 50, 80, 90 or 20.

Game 1: table 1 seats P01..P08, table 2 P09..P16.
    P01 90 (1st)   P09 80 (2nd)
    P02 50, P10 50: tied for 3rd-4th across the tables; reroll 10 v 4: P02 3rd, P10 4th
    P03 40 (5th)
    P04 P05 P11 P12 30: tied 6th-9th, no points at stake: all 6th, never rerolled
    P06 P07 P08 P13 P14 P15 P16 20: all 10th
Game 2: table 1 seats the odd players P01, P03 .. P15; table 2 the even ones, P16 down to P02.
    P16 90 (1st)   P01 80 (2nd)   P05 50 (3rd)   P04 40 (4th)
    P07 P08 P06 30: tied for 5th-7th (group order: table 1's seats, then table 2's);
        reroll P07 4, P08 4, P06 12: P06 5th; P07 and P08 equal again but for 6th-7th,
        where nothing is at stake: both 6th, no second reroll
    the other nine 20: all 8th
Points (3, 2, 1.5, 1, 0.5), nobody 1st twice (no bonus):
    P01 3 + 2 = 5 (rank 1)   P16 0 + 3 = 3 (2)   P09 2 (3)   P02 1.5, P05 1.5 (4)
    P04 1, P10 1 (6)   P03 0.5, P06 0.5 (8)   the seven others 0 (10)
"""

from __future__ import annotations

import asyncio

from app.games.tournament.rules import TournamentRules
from tests.conftest import ServerProcess
from tests.games.tournament.support import (
    Seat,
    Tourney,
    assert_log_replays,
    assert_room_replays,
    play_game,
)

NAMES = [f"P{n:02}" for n in range(1, 17)]
ROUNDS = 3
GAME_1_TABLES = [NAMES[:8], NAMES[8:]]
GAME_2_TABLES = [NAMES[0::2], NAMES[1::2][::-1]]
GAME_1_BANKS = {"P01": 5, "P09": 4, "P02": 3, "P10": 3, "P03": 2, "P04": 1, "P05": 1, "P11": 1}
GAME_1_BANKS |= {"P12": 1}
GAME_2_BANKS = {"P16": 5, "P01": 4, "P05": 3, "P04": 2, "P06": 1, "P07": 1, "P08": 1}
GAME_1_PLACES = {"P01": 1, "P09": 2, "P02": 3, "P10": 4, "P03": 5}
GAME_1_PLACES |= dict.fromkeys(["P04", "P05", "P11", "P12"], 6)
GAME_1_PLACES |= dict.fromkeys(["P06", "P07", "P08", "P13", "P14", "P15", "P16"], 10)
GAME_2_PLACES = {"P16": 1, "P01": 2, "P05": 3, "P04": 4, "P06": 5, "P07": 6, "P08": 6}
GAME_2_PLACES |= dict.fromkeys(["P02", "P03", "P09", "P10", "P11", "P12", "P13", "P14", "P15"], 8)
STANDINGS = [  # (name, points per game, total, rank); equal totals in join order
    ("P01", [3, 2], 5, 1),
    ("P16", [0, 3], 3, 2),
    ("P09", [2, 0], 2, 3),
    ("P02", [1.5, 0], 1.5, 4),
    ("P05", [0, 1.5], 1.5, 4),
    ("P04", [0, 1], 1, 6),
    ("P10", [1, 0], 1, 6),
    ("P03", [0.5, 0], 0.5, 8),
    ("P06", [0, 0.5], 0.5, 8),
    *((name, [0, 0], 0, 10) for name in ("P07", "P08", "P11", "P12", "P13", "P14", "P15")),
]


async def play_two_tables(
    tourney: Tourney, tables: list[list[str]], banks: dict[str, int]
) -> list[Seat]:
    made = await tourney.next(tables)
    assert [[tourney.name_of(pid) for pid in t["players"]] for t in made] == tables
    seats = [await Seat.open(tourney, table) for table in made]
    by_id = {tourney.ids[name]: n for name, n in banks.items()}
    await play_game(seats[0], ROUNDS, by_id)
    half = await tourney.newest(lambda s: s["tables"][0]["status"] == "finished", "table 1")
    assert half["status"] == "playing"  # one table done: the game is still on
    assert half["tables"][1]["status"] == "lobby"  # table 2 has not started
    await tourney.socket.refused("not_finished", type="score")
    await play_game(seats[1], ROUNDS, by_id)
    await tourney.status("scoring")
    await tourney.socket.ok(type="score")
    return seats


async def test_sixteen_players_at_two_tables_are_ranked_together(server: ServerProcess) -> None:
    await sixteen_players(server.base_url, server.ws_url)


async def sixteen_players(base_url: str, ws_url: str) -> None:
    """The whole tournament: HTTP at `base_url`, every socket at `ws_url` (the same
    process, or another one sharing its Redis: tests/cluster/test_spawned_rooms.py)."""
    tourney = Tourney(base_url, ws_url, games=2, rounds=ROUNDS, roll_entry="banker")
    for name in NAMES:
        tourney.join(name)
    organiser = await tourney.open()
    ids = tourney.ids

    seats = await play_two_tables(tourney, GAME_1_TABLES, GAME_1_BANKS)
    rerolling = await tourney.status("reroll")
    p02, p10 = ids["P02"], ids["P10"]
    assert rerolling["reroll"] == {
        "groups": [{"places": [3, 4], "players": [p02, p10], "rolls": {p02: None, p10: None}}]
    }
    await organiser.ok(type="reroll", player_id=p10, dice=[2, 2])
    await organiser.ok(type="reroll", player_id=p02, dice=[5, 5])
    game_1 = (await tourney.status("between"))["results"][0]
    assert game_1["places"] == {ids[n]: p for n, p in GAME_1_PLACES.items()}
    assert game_1["totals"][ids["P01"]] == 90 and game_1["totals"][ids["P16"]] == 20
    assert game_1["tables"] == [s.code for s in seats]

    seats += await play_two_tables(tourney, GAME_2_TABLES, GAME_2_BANKS)
    rerolling = await tourney.status("reroll")
    p06, p07, p08 = ids["P06"], ids["P07"], ids["P08"]
    group = rerolling["reroll"]["groups"]
    assert group == [
        {
            "places": [5, 6, 7],
            "players": [p07, p08, p06],
            "rolls": {p07: None, p08: None, p06: None},
        }
    ]
    await asyncio.gather(  # the organiser enters them in any order, all at once
        organiser.ok(type="reroll", player_id=p07, dice=[2, 2]),
        organiser.ok(type="reroll", player_id=p08, dice=[1, 3]),
        organiser.ok(type="reroll", player_id=p06, dice=[6, 6]),
    )
    final = await tourney.status("finished")
    game_2 = final["results"][1]
    assert game_2["places"] == {ids[n]: p for n, p in GAME_2_PLACES.items()}
    assert game_2["rerolls"] == [
        {"players": [p07, p08, p06], "rolls": {p07: [2, 2], p08: [1, 3], p06: [6, 6]}}
    ]
    assert final["standings"] == [
        {"player_id": ids[n], "points": p, "bonus": 0, "total": t, "rank": r}
        for n, p, t, r in STANDINGS
    ]
    assert final["winners"] == [ids["P01"]]
    for seat in seats:
        assert_room_replays(base_url, seat.code)
    assert_log_replays(TournamentRules(), tourney.log(), tourney.state())
