"""In `virtual` mode the server rolls the rerolls: players send `reroll` without dice."""

from __future__ import annotations

from tests.conftest import ServerProcess
from tests.games.tournament.support import Seat, Tourney, connect_tournament, welcome


async def test_virtual_rerolls_are_rolled_by_the_server_until_the_tie_breaks(
    server: ServerProcess,
) -> None:
    tourney = Tourney(server.base_url, server.ws_url, games=1, rounds=1, roll_entry="virtual")
    ann, bob = tourney.join("Ann"), tourney.join("Bob")
    organiser = await tourney.open()
    phones = {}
    for name in ("Ann", "Bob"):
        phones[name] = await connect_tournament(server.ws_url, tourney.code, tourney.tokens[name])
        await welcome(phones[name])
    seat = await Seat.open(tourney, (await tourney.next())[0])
    await seat.banker.ok(type="start")
    await seat.banker.ok(type="roll", dice=[3, 4])  # the banker may still enter a roll
    await seat.phones[ann].ok(type="bank")
    await seat.phones[bob].ok(type="bank")  # 70 each: tied for 1st-2nd
    await tourney.status("scoring")
    await organiser.ok(type="score")
    await tourney.status("reroll")
    await phones["Ann"].refused("not_allowed", type="reroll", dice=[6, 6])  # the server rolls
    rounds = 0
    while tourney.state()["status"] == "reroll":
        rounds += 1
        await phones["Ann"].ok(type="reroll")
        await organiser.ok(type="reroll", player_id=bob)  # the organiser may roll for Bob
        assert rounds < 30, "fair dice tie 30 times in a row once in 10^28"
    result = (await tourney.status("finished"))["results"][0]
    assert len(result["rerolls"]) == rounds
    for group in result["rerolls"][:-1]:  # every group but the last tied
        assert sum(group["rolls"][ann]) == sum(group["rolls"][bob])
    last = result["rerolls"][-1]["rolls"]
    assert all(1 <= d <= 6 for dice in last.values() for d in dice)
    winner, loser = (ann, bob) if sum(last[ann]) > sum(last[bob]) else (bob, ann)
    assert result["places"] == {winner: 1, loser: 2}
