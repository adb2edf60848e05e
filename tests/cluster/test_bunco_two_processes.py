"""Bunco with its 12 players spread over two processes sharing a real redis-server:
the classic night (the same moves, wins and Buncos as on one process) and the bell
race (arrival at the owner decides), each ending on one state everywhere."""

from __future__ import annotations

import httpx

from tests.cluster.conftest import verify_chain
from tests.games.bunco.bunco_night import assert_bunco_replays, play_night
from tests.games.bunco.test_bunco_bell_race import race, racing_night
from tests.games.bunco.test_bunco_night import CLASSIC_NIGHT, assert_classic_result, classic_night


async def test_a_night_played_through_two_processes_ends_on_one_state(make_cluster) -> None:  # type: ignore[no-untyped-def]
    cluster = make_cluster(2)
    first, second = cluster.servers
    night = classic_night(second.base_url)  # the room is owned where it was made
    banker, players, spectator = await night.connect([first.ws_url, second.ws_url])
    letter, final = await play_night(night, banker, players, spectator, CLASSIC_NIGHT)

    assert_classic_result(final, letter)
    events = night.log()
    verify_chain(events)
    assert_bunco_replays(events, final)
    for server in cluster.servers:
        assert httpx.get(f"{server.base_url}/api/rooms/{night.code}").json()["state"] == final
    for client in (banker, spectator, *players.values()):
        assert await client.state_at_least(final["seq"]) == final
    assert cluster.owners() == [1], "the process that made the room owned it throughout"
    sheets = {
        httpx.get(f"{server.base_url}/api/rooms/{night.code}/scoresheet.csv").text
        for server in cluster.servers
    }
    assert len(sheets) == 1 and len(next(iter(sheets)).splitlines()) == 13


async def test_the_bell_race_across_two_processes_counts_by_arrival_at_the_owner(  # type: ignore[no-untyped-def]
    make_cluster,
) -> None:
    cluster = make_cluster(2)
    first, second = cluster.servers
    night = racing_night(first.base_url, sets=2)
    banker, players, spectator = await night.connect([second.ws_url, first.ws_url])
    await race(night, banker, players, spectator, seed=9)
