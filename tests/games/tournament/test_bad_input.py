"""Every tournament message and endpoint with bad input: the contract's error, and no change.

One `roller` tournament of 3 players and 2 games of 1 round is walked from the lobby to
`finished`; at each stage every bad command is sent and the tournament's state and log
are compared before and after (presence is left alone: no socket opens or closes while
a check runs).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import httpx

from tests.client import Client
from tests.conftest import ServerProcess
from tests.games.tournament.support import Seat, Tourney, connect_tournament, until, welcome

Check = Callable[[], Awaitable[None]]


async def unchanged(tourney: Tourney, *checks: Check) -> None:
    """Each check leaves the tournament's state and log exactly as they were."""
    for check in checks:
        before = (tourney.state(), tourney.log())
        await check()
        assert (tourney.state(), tourney.log()) == before, check


def refused(client: Client, error: str, /, **command: Any) -> Check:
    async def check() -> None:
        answer = await client.command(**command)
        assert answer["type"] == "error" and answer["code"] == error, (command, answer)

    return check


async def all_connected(tourney: Tourney) -> bool:
    return all(p["connected"] for p in tourney.state()["players"])


def http_refused(
    tourney: Tourney, status: int, code: str, method: str, path: str, **kw: Any
) -> Check:
    async def check() -> None:
        response = httpx.request(method, f"{tourney.base_url}{path}", **kw)
        assert response.status_code == status, response.text
        assert response.json()["error"]["code"] == code, response.text

    return check


async def test_bad_tournament_options_are_refused_with_422(server: ServerProcess) -> None:
    for body in (
        {"games": 0},
        {"games": 11},
        {"games": "4"},
        {"games": 2.5},
        {"games": True},
        {"rounds": 0},
        {"rounds": 101},
        {"rounds": None},
        {"roll_entry": "dice"},
        {"roll_entry": 1},
    ):
        response = httpx.post(f"{server.base_url}/api/tournaments", json=body)
        assert response.status_code == 422, (body, response.text)
        assert response.json()["error"]["code"] == "bad_request", response.text
        assert list(body)[0] in response.json()["error"]["message"]


async def test_unknown_tournaments_and_tokens_are_refused(server: ServerProcess) -> None:
    tourney = Tourney(server.base_url, server.ws_url, games=1, rounds=1)
    room = httpx.post(f"{server.base_url}/api/rooms", json={"game": "bank"}).json()["code"]
    for code in ("ZZZZ", room):  # a room's code is not a tournament's
        for path in ("", "/log", "/scoresheet.csv"):
            response = httpx.get(f"{server.base_url}/api/tournaments/{code}{path}")
            assert response.status_code == 404, response.text
            assert response.json()["error"]["code"] == "unknown_tournament"
        joined = httpx.post(f"{server.base_url}/api/tournaments/{code}/players", json={"name": "A"})
        assert joined.status_code == 404
    for code, token, close in (("ZZZZ", None, 4404), (room, None, 4404), (tourney.code, "x", 4401)):
        client = await connect_tournament(server.ws_url, code, token)
        assert await client.wait_closed() == close
    as_room = await Client.connect(server.ws_url, tourney.code)  # not a room: another collection
    assert await as_room.wait_closed() == 4404


async def test_every_bad_command_is_refused_and_changes_nothing(server: ServerProcess) -> None:
    tourney = Tourney(server.base_url, server.ws_url, games=2, rounds=1, roll_entry="roller")
    ann, bob, cy, dee = (tourney.join(name) for name in ("Ann", "Bob", "Cy", "Dee"))
    org = await tourney.open()
    await org.ok(type="kick", player_id=dee)  # a kicked player's token opens nothing
    kicked = await connect_tournament(server.ws_url, tourney.code, tourney.tokens["Dee"])
    assert await kicked.wait_closed() == 4401
    phones = {}
    for name in ("Ann", "Bob", "Cy"):
        phones[name] = await connect_tournament(server.ws_url, tourney.code, tourney.tokens[name])
        await welcome(phones[name])
    spectator = await connect_tournament(server.ws_url, tourney.code)
    await welcome(spectator)
    await until(lambda: all_connected(tourney), "the phones' presence")
    code = tourney.code
    players = f"/api/tournaments/{code}/players"

    # In the lobby.
    await unchanged(
        tourney,
        refused(phones["Ann"], "not_allowed", type="next"),
        refused(spectator, "not_allowed", type="next"),
        refused(org, "bad_seating", type="next", tables=[[ann, bob], [ann]]),
        refused(org, "bad_seating", type="next", tables=[[ann, bob, bob]]),
        refused(org, "bad_seating", type="next", tables=[[ann, bob], []]),
        refused(org, "unknown_player", type="next", tables=[[ann, "nobody"]]),
        refused(org, "unknown_player", type="next", tables=[[ann, dee]]),  # kicked
        refused(org, "unknown_player", type="kick", player_id=dee),
        refused(org, "not_enough_players", type="next", tables=[]),
        refused(org, "bad_message", type="next", tables=[ann, bob]),
        refused(org, "bad_message", type="next", tables="all"),
        refused(org, "bad_message", type="next", tables=[[1, 2]]),
        refused(phones["Ann"], "not_allowed", type="score"),
        refused(org, "not_finished", type="score"),
        refused(org, "no_reroll", type="reroll", player_id=ann, dice=[3, 4]),
        refused(phones["Ann"], "no_reroll", type="reroll", dice=[3, 4]),
        refused(phones["Ann"], "not_allowed", type="kick", player_id=bob),
        refused(org, "unknown_player", type="kick", player_id="nobody"),
        refused(org, "bad_message", type="kick"),
        refused(org, "bad_message", type="report", code="ABCD", status="playing"),
        refused(org, "bad_message", type="spawned", effect="1-1", code="ABCD"),
        refused(org, "bad_message", type="join", player_id="x", name="Zed"),
        refused(org, "not_allowed", type="undo"),
        refused(org, "bad_message", type="dance"),
        http_refused(tourney, 422, "bad_name", "POST", players, json={"name": ""}),
        http_refused(tourney, 422, "bad_name", "POST", players, json={"name": "x" * 100}),
        http_refused(tourney, 409, "name_taken", "POST", players, json={"name": "ann"}),
    )

    # Game 1 in play: Ann and Bob bank 10, Cy 20 (a tie for 2nd-3rd).
    table = (await tourney.next())[0]
    seat = await Seat.open(tourney, table)
    await seat.banker.ok(type="start")
    await unchanged(
        tourney,
        refused(org, "game_in_progress", type="next"),
        refused(org, "not_finished", type="score"),
        refused(org, "not_in_lobby", type="kick", player_id=cy),
        refused(org, "no_reroll", type="reroll", player_id=ann, dice=[3, 4]),
        http_refused(tourney, 409, "not_in_lobby", "POST", players, json={"name": "Dee"}),
        http_refused(
            tourney,
            409,
            "not_in_lobby",
            "POST",
            f"/api/rooms/{seat.code}/players",
            json={"name": "D"},
        ),
        refused(seat.banker, "not_allowed", type="kick", player_id=ann),
        refused(seat.banker, "bad_message", type="lock"),
    )
    await seat.banker.ok(type="roll", dice=[6, 4])
    await seat.phones[ann].ok(type="bank")
    await seat.phones[bob].ok(type="bank")
    await seat.banker.ok(type="roll", dice=[6, 4])
    await unchanged(tourney, refused(org, "not_finished", type="score"))  # Cy still at it
    await seat.phones[cy].ok(type="bank")
    await tourney.status("scoring")
    await unchanged(
        tourney,
        refused(org, "game_in_progress", type="next"),
        refused(phones["Ann"], "no_reroll", type="reroll", dice=[3, 4]),
        http_refused(tourney, 409, "not_in_lobby", "POST", players, json={"name": "Dee"}),
    )
    await org.ok(type="score")
    await tourney.status("reroll")

    # The reroll of Ann and Bob for 2nd and 3rd.
    await unchanged(
        tourney,
        refused(phones["Cy"], "no_reroll", type="reroll", dice=[3, 4]),  # Cy is not tied
        refused(org, "no_reroll", type="reroll", player_id=cy, dice=[3, 4]),
        refused(org, "unknown_player", type="reroll", player_id="nobody", dice=[3, 4]),
        refused(org, "bad_message", type="reroll", dice=[3, 4]),  # for whom?
        refused(phones["Ann"], "not_allowed", type="reroll", player_id=bob, dice=[3, 4]),
        refused(spectator, "not_allowed", type="reroll", player_id=ann, dice=[3, 4]),
        refused(phones["Ann"], "bad_message", type="reroll"),  # roller mode: dice needed
        refused(phones["Ann"], "bad_message", type="reroll", dice=[0, 3]),
        refused(phones["Ann"], "bad_message", type="reroll", dice=[7, 1]),
        refused(phones["Ann"], "bad_message", type="reroll", dice=[1, 2, 3]),
        refused(phones["Ann"], "bad_message", type="reroll", dice=[4]),
        refused(phones["Ann"], "bad_message", type="reroll", dice=["3", "4"]),
        refused(phones["Ann"], "bad_message", type="reroll", dice=[3.0, 4.0]),
        refused(phones["Ann"], "bad_message", type="reroll", dice="34"),
        refused(org, "game_in_progress", type="next"),
        refused(org, "not_finished", type="score"),
        http_refused(tourney, 409, "not_in_lobby", "POST", players, json={"name": "Dee"}),
    )
    await phones["Ann"].ok(type="reroll", dice=[6, 5])
    await unchanged(
        tourney,
        refused(phones["Ann"], "already_rolled", type="reroll", dice=[3, 4]),
        refused(org, "already_rolled", type="reroll", player_id=ann, dice=[3, 4]),
    )
    await phones["Bob"].ok(type="reroll", dice=[1, 1])  # 11 beats 2: Ann 2nd, Bob 3rd
    between = await tourney.status("between")
    assert between["results"][0]["places"] == {cy: 1, ann: 2, bob: 3}
    await unchanged(
        tourney,
        refused(phones["Ann"], "no_reroll", type="reroll", dice=[3, 4]),
        refused(org, "not_finished", type="score"),
        refused(org, "not_in_lobby", type="kick", player_id=cy),
    )

    # Game 2 (Ann and Bob only), then the tournament is over.
    table = (await tourney.next(tables=[["Ann", "Bob"]]))[0]
    seat = await Seat.open(tourney, table)
    await seat.banker.ok(type="start")
    await seat.banker.ok(type="roll", dice=[6, 4])
    await seat.phones[ann].ok(type="bank")
    await seat.banker.ok(type="roll", dice=[6, 4])
    await seat.phones[bob].ok(type="bank")
    await tourney.status("scoring")
    await org.ok(type="score")
    await tourney.status("finished")
    await unchanged(
        tourney,
        refused(org, "tournament_over", type="next"),
        refused(org, "tournament_over", type="next", tables=[[ann]]),
        refused(org, "tournament_over", type="score"),
        refused(org, "tournament_over", type="reroll", player_id=ann, dice=[3, 4]),
        refused(phones["Ann"], "tournament_over", type="reroll", dice=[3, 4]),
        refused(org, "not_in_lobby", type="kick", player_id=cy),
        http_refused(tourney, 409, "not_in_lobby", "POST", players, json={"name": "Dee"}),
    )
