"""The bell races the lower tables: arrival order decides, over real sockets.

Each of 12 rounds (two sets, 12 players, rollers enter their dice; here and across two
processes in tests/cluster): every lower table first puts one team ahead by a point,
so no table is tied at the bell; then the High table's Bunco and two more one-point
rolls at each lower table are sent at random moments within a few milliseconds,
concurrently. A lower roll acked with a
seq below the bell's counts (its table's score shows it); every other one is
refused `round_over` and counts for nothing.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Mapping
from itertools import pairwise
from typing import Any

from tests.client import Client, Message
from tests.conftest import ServerProcess
from tests.games.bunco.bunco_night import BuncoNight, assert_bunco_replays, dice

RACE_ROLLS = 2  # per lower table, from the player holding its dice
WINDOW = 0.005  # seconds over which the racing rolls are spread


async def jittered(client: Client, delay: float, **command: Any) -> Message:
    await asyncio.sleep(delay)
    return await client.command(**command)


async def lead(
    players: Mapping[str, Client], table: Mapping[str, Any], team: int, target: int
) -> str:
    """Put `team` a point ahead at a lower table; who holds the dice then."""
    seats = table["seats"]
    if team == 1:
        await players[seats[0]].ok(type="roll", dice=dice("-", target))
    await players[seats[team]].ok(type="roll", dice=dice("1", target))
    return str(seats[team])


async def test_lower_rolls_count_only_when_they_arrive_before_the_bell(
    server: ServerProcess,
) -> None:
    night = racing_night(server.base_url, sets=2)
    banker, players, spectator = await night.connect([server.ws_url])
    await race(night, banker, players, spectator, seed=2026)


def racing_night(base_url: str, sets: int) -> BuncoNight:
    night = BuncoNight(base_url, sets=sets, roll_entry="roller")
    for n in range(12):
        night.join(f"Racer {n + 1}")
    return night


async def race(
    night: BuncoNight,
    banker: Client,
    players: Mapping[str, Client],
    spectator: Client,
    *,
    seed: int,
) -> None:
    """Start `night` and race the bell in every round of it, to its end."""
    rng = random.Random(seed)
    expected = {pid: [0, 0, 0] for pid in players}  # wins, losses, Buncos
    counted = refused = 0
    last = await banker.ok(type="start")
    rounds = 6 * night.state()["sets"]
    for played in range(1, rounds + 1):
        state = await spectator.state_at_least(last)
        assert state["phase"] == "playing"
        target, tables = state["round"], state["tables"]
        leaders = [rng.randrange(2) for _ in tables]  # the team ahead (High: the winner)
        holders = [await lead(players, t, leaders[i], target) for i, t in enumerate(tables) if i]
        high = tables[0]["seats"]
        if leaders[0] == 1:
            await players[high[0]].ok(type="roll", dice=dice("-", target))
        bell_task = jittered(
            players[high[leaders[0]]], rng.uniform(0, WINDOW), type="roll", dice=dice("B", target)
        )
        racing = [
            jittered(players[holder], rng.uniform(0, WINDOW), type="roll", dice=dice("1", target))
            for holder in holders
            for _ in range(RACE_ROLLS)
        ]
        bell, *answers = await asyncio.gather(bell_task, *racing)
        assert bell["type"] == "ack", bell

        in_time = [0] * len(tables)
        for n, answer in enumerate(answers):
            if answer["type"] == "ack":
                assert answer["seq"] < bell["seq"], "a roll acked after the bell counted"
                in_time[1 + n // RACE_ROLLS] += 1
            else:
                assert answer["code"] == "round_over", answer
        counted += sum(in_time)
        refused += len(answers) - sum(in_time)

        state = await spectator.state_at_least(bell["seq"])
        result = state["rounds_log"][-1]
        assert (result["set"], result["round"]) == ((played - 1) // 6 + 1, (played - 1) % 6 + 1)
        assert result["bell_by"] == high[leaders[0]]
        for index, (table, team) in enumerate(zip(result["tables"], leaders, strict=True)):
            ahead = 21 if index == 0 else 1 + in_time[index]
            assert table["scores"] == ([ahead, 0] if team == 0 else [0, ahead]), (played, index)
            assert set(table["winners"]) == {table["seats"][team], table["seats"][team + 2]}
            for pid in table["seats"]:
                expected[pid][0 if pid in table["winners"] else 1] += 1
        expected[high[leaders[0]]][2] += 1
        if played < rounds:
            assert state["phase"] == "waiting"
            last = await banker.ok(type="ring")

    print(f"bell race: {counted} lower rolls counted, {refused} refused")
    assert counted > 0 and refused > 0, "the race was never close: widen the window"
    final = night.state()
    assert final["status"] == "finished"
    assert {p["id"]: [p["wins"], p["losses"], p["buncos"]] for p in final["players"]} == expected
    assert_bunco_replays(night.log(), final)
    for client in (banker, spectator, *players.values()):
        assert await client.state_at_least(final["seq"]) == final
        seqs = [s["seq"] for s in client.states()]
        assert all(a < b for a, b in pairwise(seqs)), "seqs strictly increase everywhere"
