"""Arrival order decides: BANKs racing a 7, over real sockets to a real server.

Each trial is one round: three safe rolls, then 8 players send BANK while the
banker sends the 7 of roll 4, all at random moments within a few milliseconds.
"""

from __future__ import annotations

import asyncio
import random
from typing import Any

from app.rooms.eventlog import verify
from tests.client import Client, Table, assert_replays_to
from tests.conftest import ServerProcess

PLAYERS = 8
TRIALS = 25
SAFE_ROLLS = ([2, 3], [4, 4], [5, 6])  # 5 + 8 + 11
BANK_AT_RACE = 24


async def jittered(client: Client, delay: float, **command: Any) -> dict[str, Any]:
    await asyncio.sleep(delay)
    return await client.command(**command)


def strictly_increasing(client: Client) -> bool:
    seqs = [state["seq"] for state in client.states()]
    return all(a < b for a, b in zip(seqs, seqs[1:]))


async def test_banks_that_arrive_before_the_seven_count_and_the_rest_are_round_over(
    server: ServerProcess,
) -> None:
    table = Table(server.base_url, rounds=100)
    ids = [table.join(f"P{n}") for n in range(PLAYERS)]
    banker = await Client.connect(server.ws_url, table.code, table.banker_token)
    players = [
        await Client.connect(server.ws_url, table.code, table.players[f"P{n}"][1])
        for n in range(PLAYERS)
    ]
    spectator = await Client.connect(server.ws_url, table.code)
    await banker.ok(type="start")
    rng = random.Random(2026)
    expected = {pid: 0 for pid in ids}
    races_split = 0

    for _ in range(TRIALS):
        for dice in SAFE_ROLLS:
            last = await banker.ok(type="roll", dice=dice)
        race_round = (await spectator.state_at_least(last))["round"]
        window = 0.004
        tasks = [
            asyncio.create_task(jittered(banker, rng.uniform(0, window), type="roll", dice=[3, 4]))
        ]
        tasks += [
            asyncio.create_task(jittered(p, rng.uniform(0, window), type="bank")) for p in players
        ]
        seven, *banks = await asyncio.gather(*tasks)
        assert seven["type"] == "ack", seven
        in_time = {pid for pid, answer in zip(ids, banks) if answer["type"] == "ack"}
        for answer in banks:
            if answer["type"] == "ack":
                assert answer["seq"] < seven["seq"], "a BANK acked after the 7 was credited"
            else:
                assert answer["code"] == "round_over", answer
        if 0 < len(in_time) < PLAYERS:
            races_split += 1
        for pid in in_time:
            expected[pid] += BANK_AT_RACE

        state = await spectator.state_at_least(seven["seq"])
        assert {p["id"]: p["score"] for p in state["players"]} == expected
        result = state["rounds_log"][race_round - 1]
        assert {b["player_id"] for b in result["banked"]} == in_time
        assert all(b["amount"] == BANK_AT_RACE for b in result["banked"])
        if len(in_time) < PLAYERS:
            assert (result["ended_by"], result["bank"]) == ("seven", BANK_AT_RACE)
        else:  # everyone beat the 7, which opened the next round as a safe roll: end it
            for dice in ([1, 2], [1, 2], [6, 1]):
                await banker.ok(type="roll", dice=dice)

    assert races_split >= TRIALS // 3, "the race was never close: widen the window"
    final = table.state()
    events = table.log()
    assert verify(events)
    assert_replays_to(events, final)
    everyone = [banker, spectator, *players]
    for client in everyone:
        seen = await client.state_at_least(final["seq"])
        assert seen == final
        assert strictly_increasing(client)
