"""A tournament outlives the process that owned it: SIGKILL between two games, play goes on.

Two `python -m app` processes share one real redis-server. The tournament (and so its
game-1 table room, made by its effects) is created on process 0; the organiser's
sockets live on process 1, the phones are spread over both. After game 1 is scored,
process 0 is killed with SIGKILL. Fay then joins over process 1's HTTP and the organiser
sends `next` there: process 1 adopts the tournament (a command arrived, or its watcher
saw the lapsed lease) and game 2 is played on it. Nothing acknowledged is lost: every
acked command's event is in its log, once.

2 games of 3 rounds (tests/games/tournament/support.py: 20 each before round 3, then the
round-3 bank after roll 1..5: 10, 20, 30, 60, 70):
    game 1 (Ann..Eve)  Ann 90, Bob 50 = Cy 50 (reroll 7 v 7, then 12 v 3: Bob 2nd),
                       Dee 40, Eve 20                    points 3, 2, 1.5, 1, 0.5
    game 2 (Eve out)   Ann 90, Fay 80, Cy 50, Bob 40, Dee 30   points 3, 2, 1.5, 1, 0.5
    Ann 3 + 3 + bonus 3 (1st in both) = 9 (rank 1); Bob 2 + 1 = 3, Cy 1.5 + 1.5 = 3 (2);
    Fay 0 + 2 = 2 (4); Dee 1 + 0.5 = 1.5 (5); Eve 0.5 + 0 = 0.5 (6)
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import httpx

from app.rooms.eventlog import verify
from tests.client import Client
from tests.games.tournament.support import (
    Seat,
    Tourney,
    connect_tournament,
    play_game,
    until,
    welcome,
)

ROUNDS = 3
GAME_1 = {"Ann": 5, "Bob": 3, "Cy": 3, "Dee": 2, "Eve": None}
GAME_2 = {"Ann": 5, "Fay": 4, "Cy": 3, "Bob": 2, "Dee": 1}
STANDINGS = [
    ("Ann", [3, 3], 3, 9, 1),
    ("Bob", [2, 1], 0, 3, 2),
    ("Cy", [1.5, 1.5], 0, 3, 2),
    ("Fay", [0, 2], 0, 2, 4),
    ("Dee", [1, 0.5], 0, 1.5, 5),
    ("Eve", [0.5, 0], 0, 0.5, 6),
]
TIMEOUT = 15  # a command sent while the owner is dead waits for the takeover (lease 3 s)


def log_of(base_url: str, kind: str, code: str) -> list[dict[str, Any]]:
    response = httpx.get(f"{base_url}/api/{kind}/{code}/log", timeout=5)
    assert response.status_code == 200, response.text
    return response.json()["events"]  # type: ignore[no-any-return]


def assert_acked_once(events: list[dict[str, Any]], acked: dict[int, str]) -> None:
    """Every acked seq is in the log with its command's event type; the chain holds; and
    no command was applied twice (the log has as many of each type as were acked)."""
    assert verify(events)
    by_seq = {event["seq"]: event["type"] for event in events}
    for seq, kind in acked.items():
        assert by_seq.get(seq) == kind, (seq, kind, by_seq.get(seq))
    counts = Counter(by_seq.values())
    for kind, count in Counter(acked.values()).items():
        assert counts[kind] == count, (kind, counts[kind], count)


async def test_a_tournament_survives_the_kill_of_its_owner_between_games(make_cluster) -> None:  # type: ignore[no-untyped-def]
    cluster = make_cluster(2)
    doomed, survivor = cluster.servers
    tourney = Tourney(doomed.base_url, survivor.ws_url, games=2, rounds=ROUNDS)
    for name in GAME_1:
        tourney.join(name)
    assert cluster.owners() == [0]
    organiser = await tourney.open()  # on the survivor
    acked: dict[int, str] = {}  # the tournament's acked seqs and their events
    table_acks: dict[str, dict[int, str]] = {}

    table = (await tourney.next())[0]
    acked[tourney.acked[-1]] = "next"
    on_doomed = {"Ann": doomed.ws_url, "Bob": doomed.ws_url, "Cy": doomed.ws_url}
    seat = await Seat.open(tourney, table, survivor.ws_url, on_doomed)
    by_id = {tourney.ids[n]: k for n, k in GAME_1.items()}
    table_acks[seat.code] = await play_game(seat, ROUNDS, by_id)
    await tourney.status("scoring")
    acked[await organiser.ok(type="score")] = "score"
    await tourney.status("reroll")  # once the table confirmed its lock
    bob, cy = tourney.ids["Bob"], tourney.ids["Cy"]
    for pid, dice in ((bob, [3, 4]), (cy, [2, 5]), (bob, [6, 6]), (cy, [1, 2])):
        acked[await organiser.ok(type="reroll", player_id=pid, dice=dice)] = "reroll"
    await tourney.status("between")
    game_1_table = seat.code
    assert cluster.owners() == [0], "the tournament and its table are owned by process 0"

    doomed.kill()  # SIGKILL between the games
    for phone in on_doomed:
        await seat.phones[tourney.ids[phone]].wait_closed(5)
    tourney.base_url = survivor.base_url
    tourney.join("Fay")  # a command for the dead owner's room: the survivor takes it over
    table = (await tourney.next([["Ann", "Bob", "Cy", "Dee", "Fay"]], timeout=TIMEOUT))[0]
    acked[tourney.acked[-1]] = "next"
    assert cluster.owners() == [1]
    seat = await Seat.open(tourney, table, survivor.ws_url)
    by_id = {tourney.ids[n]: k for n, k in GAME_2.items()}
    table_acks[seat.code] = await play_game(seat, ROUNDS, by_id)
    await tourney.status("scoring")
    acked[await organiser.ok(type="score")] = "score"
    final = await tourney.status("finished")

    assert final["standings"] == [
        {"player_id": tourney.ids[n], "points": p, "bonus": b, "total": t, "rank": r}
        for n, p, b, t, r in STANDINGS
    ]
    assert [p["name"] for p in final["players"]] == [*GAME_1, "Fay"]
    events = log_of(survivor.base_url, "tournaments", tourney.code)
    assert_acked_once(events, acked)
    assert Counter(e["type"] for e in events)["join"] == 6
    for code, table_acked in table_acks.items():
        assert_acked_once(log_of(survivor.base_url, "rooms", code), table_acked)

    # Game 1's table (owned by the dead process) still takes its lock, once, and refuses undo.
    async def locked() -> bool:
        kinds = [e["type"] for e in log_of(survivor.base_url, "rooms", game_1_table)]
        return "lock" in kinds

    await until(locked, "game 1's lock", TIMEOUT)
    banker = await Client.connect(survivor.ws_url, game_1_table, tourney.organiser_token)
    await welcome(banker)
    answer = await banker.command(timeout=TIMEOUT, type="undo")
    assert answer["code"] == "game_over", answer
    kinds = [e["type"] for e in log_of(survivor.base_url, "rooms", game_1_table)]
    assert kinds.count("lock") == 1, kinds  # told once, whoever carried the effect out
    spectator = await connect_tournament(survivor.ws_url, tourney.code)
    assert (await welcome(spectator))["state"]["seq"] == events[-1]["seq"]
