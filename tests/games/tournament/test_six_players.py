"""A whole Desert Dynasty tournament over real sockets: 6 players, 4 games of 10 rounds.

The organiser's token is the banker of every table room: it enters every roll and banks
for everyone in rounds 1..9 (10 each, so 90 each before the last round); in round 10
each player banks from its own phone after the roll the script names:

    rolls of round 10:  [6,4] [6,4] [6,4] [5,5]  [6,4] [3,4]
    bank after it:        10    20    30   60*     70   (a 7 after the 3rd: round over)
    (* doubles after the 3rd roll double the bank)

so a game total is 90 + that bank (90 for a player who never banks in round 10).

Ann, Bob, Cy, Dee and Eve join in the lobby; Fay joins between games 1 and 2 (she has
no place in game 1); Eve sits game 3 out (`next` with `tables` without her).

    game 1  Ann 160 (1st)  Bob 120, Cy 120 (tied 2nd-3rd: reroll 7 v 7, again 12 v 3:
            Bob 2nd, Cy 3rd)  Dee 110 (4th)  Eve 90 (5th)            Fay -
    game 2  Ann 160 (1st)  Fay 150 (2nd)  Cy 120 (3rd)  Bob 110 (4th)  Dee 100 (5th)
            Eve 90 (6th)
    game 3  Ann 160 (1st)  Dee 150 (2nd)  Bob 120 (3rd)  Cy 110 (4th)  Fay 100 (5th)
            Eve -
    game 4  Ann 160 (1st)  Cy 150 (2nd)  Bob 120 (3rd)  Dee 110 (4th)  Fay 100 (5th)
            Eve 90 (6th)

Points (3, 2, 1.5, 1, 0.5 for places 1..5):
    Ann  3 + 3 + 3 + 3     = 12, 1st in all 4 games: bonus 3 → 15   rank 1
    Bob  2 + 1 + 1.5 + 1.5 = 6                                     rank 2
    Cy   1.5 + 1.5 + 1 + 2 = 6   (equal with Bob: both rank 2)      rank 2
    Dee  1 + 0.5 + 2 + 1   = 4.5                                   rank 4
    Fay  0 + 2 + 0.5 + 0.5 = 3                                     rank 5
    Eve  0.5 + 0 + 0 + 0   = 0.5                                   rank 6
"""

from __future__ import annotations

from typing import Any

import httpx

from app.games.tournament.rules import TournamentRules
from tests.client import Client
from tests.conftest import ServerProcess
from tests.games.tournament.support import (
    Seat,
    Tourney,
    assert_log_replays,
    assert_room_replays,
    connect_tournament,
    expected_total,
    play_game,
    until,
    welcome,
)

NAMES = ["Ann", "Bob", "Cy", "Dee", "Eve"]
# After which roll of round 10 each player banks (None: never), game by game.
LAST_ROUND_BANKS: list[dict[str, int | None]] = [
    {"Ann": 5, "Bob": 3, "Cy": 3, "Dee": 2, "Eve": None},
    {"Ann": 5, "Bob": 2, "Cy": 3, "Dee": 1, "Eve": None, "Fay": 4},
    {"Ann": 5, "Bob": 3, "Cy": 2, "Dee": 4, "Fay": 1},
    {"Ann": 5, "Bob": 3, "Cy": 4, "Dee": 2, "Eve": None, "Fay": 1},
]
TOTALS = [  # 90 + the round-10 bank, written out
    {"Ann": 160, "Bob": 120, "Cy": 120, "Dee": 110, "Eve": 90},
    {"Ann": 160, "Bob": 110, "Cy": 120, "Dee": 100, "Eve": 90, "Fay": 150},
    {"Ann": 160, "Bob": 120, "Cy": 110, "Dee": 150, "Fay": 100},
    {"Ann": 160, "Bob": 120, "Cy": 150, "Dee": 110, "Eve": 90, "Fay": 100},
]
PLACES: list[dict[str, int | None]] = [
    {"Ann": 1, "Bob": 2, "Cy": 3, "Dee": 4, "Eve": 5, "Fay": None},
    {"Ann": 1, "Bob": 4, "Cy": 3, "Dee": 5, "Eve": 6, "Fay": 2},
    {"Ann": 1, "Bob": 3, "Cy": 4, "Dee": 2, "Eve": None, "Fay": 5},
    {"Ann": 1, "Bob": 3, "Cy": 2, "Dee": 4, "Eve": 6, "Fay": 5},
]
POINTS: list[dict[str, int | float]] = [
    {"Ann": 3, "Bob": 2, "Cy": 1.5, "Dee": 1, "Eve": 0.5, "Fay": 0},
    {"Ann": 3, "Bob": 1, "Cy": 1.5, "Dee": 0.5, "Eve": 0, "Fay": 2},
    {"Ann": 3, "Bob": 1.5, "Cy": 1, "Dee": 2, "Eve": 0, "Fay": 0.5},
    {"Ann": 3, "Bob": 1.5, "Cy": 2, "Dee": 1, "Eve": 0, "Fay": 0.5},
]
# (name, points per game, bonus, total, rank), best first; Bob before Cy: join order.
STANDINGS = [
    ("Ann", [3, 3, 3, 3], 3, 15, 1),
    ("Bob", [2, 1, 1.5, 1.5], 0, 6, 2),
    ("Cy", [1.5, 1.5, 1, 2], 0, 6, 2),
    ("Dee", [1, 0.5, 2, 1], 0, 4.5, 4),
    ("Fay", [0, 2, 0.5, 0.5], 0, 3, 5),
    ("Eve", [0.5, 0, 0, 0], 0, 0.5, 6),
]
SCORESHEET = (
    "name,game 1 total,game 1 place,game 1 points,game 2 total,game 2 place,game 2 points,"
    "game 3 total,game 3 place,game 3 points,game 4 total,game 4 place,game 4 points,"
    "bonus,total,rank\r\n"
    "Ann,160,1,3,160,1,3,160,1,3,160,1,3,3,15,1\r\n"
    "Bob,120,2,2,110,4,1,120,3,1.5,120,3,1.5,0,6,2\r\n"
    "Cy,120,3,1.5,120,3,1.5,110,4,1,150,2,2,0,6,2\r\n"
    "Dee,110,4,1,100,5,0.5,150,2,2,110,4,1,0,4.5,4\r\n"
    "Fay,,,0,150,2,2,100,5,0.5,100,5,0.5,0,3,5\r\n"
    "Eve,90,5,0.5,90,6,0,,,0,90,6,0,0,0.5,6\r\n"
)


def by_name(tourney: Tourney, mapping: dict[str, Any]) -> dict[str, Any]:
    return {tourney.ids[name]: value for name, value in mapping.items()}


async def lock_landed(server: ServerProcess, code: str) -> None:
    """`score` tells each table `lock` (an effect, after the commit): wait until it landed."""

    async def locked() -> bool:
        events = httpx.get(f"{server.base_url}/api/rooms/{code}/log").json()["events"]
        return any(e["type"] == "lock" for e in events)

    await until(locked, f"the lock of {code}")


async def play(tourney: Tourney, game: int, tables: list[list[str]] | None = None) -> Seat:
    made = await tourney.next(tables)
    assert len(made) == 1
    seat = await Seat.open(tourney, made[0])
    await play_game(seat, 10, by_name(tourney, LAST_ROUND_BANKS[game - 1]))
    return seat


async def test_six_players_four_games_end_in_the_hand_computed_standings(
    server: ServerProcess,
) -> None:
    assert [expected_total(10, n) for n in LAST_ROUND_BANKS[0].values()] == list(
        TOTALS[0].values()
    )  # the script's arithmetic, once, against the table of totals above
    tourney = Tourney(server.base_url, server.ws_url, games=4, rounds=10, roll_entry="banker")
    for name in NAMES:
        tourney.join(name)
    organiser = await tourney.open()
    ann_phone = await connect_tournament(server.ws_url, tourney.code, tourney.tokens["Ann"])
    assert (await welcome(ann_phone))["you"] == {"role": "player", "player_id": tourney.ids["Ann"]}
    seats: list[Seat] = []

    # Game 1: everyone of the lobby at one table, in join order.
    seat = await play(tourney, 1)
    seats.append(seat)
    assert (await tourney.status("scoring"))["tables"][0]["status"] == "finished"
    # An undo at the table while the tournament waits for `score` reopens the game...
    await seat.banker.ok(type="undo")  # takes back the closing 7
    playing = await tourney.status("playing")
    assert playing["tables"][0]["status"] == "playing"
    await organiser.refused("not_finished", type="score")
    await seat.banker.ok(type="roll", dice=[3, 4])  # ...and the same 7 closes it again
    await tourney.status("scoring")
    await organiser.ok(type="score")
    rerolling = await tourney.status("reroll")
    bob, cy = tourney.ids["Bob"], tourney.ids["Cy"]
    pending = [{"places": [2, 3], "players": [bob, cy], "rolls": {bob: None, cy: None}}]
    assert rerolling["reroll"] == {"groups": pending}
    await organiser.ok(type="reroll", player_id=bob, dice=[3, 4])
    await organiser.ok(type="reroll", player_id=cy, dice=[2, 5])  # 7 and 7: tied again
    seq = await organiser.ok(type="reroll", player_id=bob, dice=[6, 6])
    again = await organiser.state_at_least(seq)
    assert again["status"] == "reroll"
    assert again["reroll"] == {"groups": [{**pending[0], "rolls": {bob: [6, 6], cy: None}}]}
    await organiser.ok(type="reroll", player_id=cy, dice=[1, 2])  # 12 beats 3: Bob 2nd
    between = await tourney.status("between")
    assert between["results"][0]["rerolls"] == [
        {"players": [bob, cy], "rolls": {bob: [3, 4], cy: [2, 5]}},
        {"players": [bob, cy], "rolls": {bob: [6, 6], cy: [1, 2]}},
    ]
    await lock_landed(server, seat.code)
    await seat.banker.refused("game_over", type="undo")

    # Fay joins late, between games 1 and 2; game 2 seats all six.
    tourney.join("Fay")
    # Her token opens game 1's table, made before she joined, as a spectator's.
    fay_there = await Client.connect(server.ws_url, seats[0].code, tourney.tokens["Fay"])
    assert (await welcome(fay_there))["you"]["role"] == "spectator"
    stranger = await Client.connect(server.ws_url, seats[0].code, "not-a-token")
    assert await stranger.wait_closed() == 4401
    seats.append(await play(tourney, 2))
    await tourney.status("scoring")
    await organiser.ok(type="score")
    await tourney.status("between")

    # Game 3: Eve sits out; her token opens the table only as a spectator's.
    seat = await play(tourney, 3, tables=[["Ann", "Bob", "Cy", "Dee", "Fay"]])
    seats.append(seat)
    eve = await Client.connect(server.ws_url, seat.code, tourney.tokens["Eve"])
    assert (await welcome(eve))["you"]["role"] == "spectator"
    await eve.refused("not_allowed", type="bank")
    await tourney.status("scoring")
    await organiser.ok(type="score")
    await tourney.status("between")

    seats.append(await play(tourney, 4))
    await tourney.status("scoring")
    await organiser.ok(type="score")
    final = await tourney.status("finished")

    assert [r["game"] for r in final["results"]] == [1, 2, 3, 4]
    for result, totals, places, points in zip(final["results"], TOTALS, PLACES, POINTS):
        assert result["totals"] == by_name(tourney, totals)
        assert result["places"] == by_name(tourney, places)
        assert result["points"] == by_name(tourney, points)
    assert [r["tables"] for r in final["results"]] == [[s.code] for s in seats]
    assert final["standings"] == [
        {"player_id": tourney.ids[n], "points": p, "bonus": b, "total": t, "rank": r}
        for n, p, b, t, r in STANDINGS
    ]
    assert final["winners"] == [tourney.ids["Ann"]]
    for points in final["standings"]:  # whole numbers are JSON ints, halves floats
        assert all(type(p) is int or p % 1 == 0.5 for p in points["points"])

    sheet = httpx.get(f"{server.base_url}/api/tournaments/{tourney.code}/scoresheet.csv")
    assert sheet.status_code == 200
    assert sheet.headers["content-type"] == "text/csv; charset=utf-8"
    assert sheet.headers["content-disposition"] == (
        f'attachment; filename="tournament-{tourney.code}.csv"'
    )
    assert sheet.text == SCORESHEET

    # Scored tables refuse undo for good; every log replays to its state and chains.
    for seat in seats:
        await lock_landed(server, seat.code)
        await seat.banker.refused("game_over", type="undo")
        assert_room_replays(server.base_url, seat.code)
    assert_log_replays(TournamentRules(), tourney.log(), tourney.state())
    await organiser.refused("tournament_over", type="next")
