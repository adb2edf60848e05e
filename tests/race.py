"""The arrival-order race, shared by the one-process and the three-process tests.

Each trial is one round: three safe rolls, then every player sends BANK while the
banker sends the 7 of roll 4, all at random moments within a few milliseconds.
Exactly the BANKs acked with a seq below the 7's count, for the full BANK; every
other one is `round_over`; every connection ends on the same state, seqs rising.
"""

from __future__ import annotations

import asyncio
import random
from itertools import pairwise
from typing import Any

from app.rooms.eventlog import verify
from tests.client import Client, Table, assert_replays_to

SAFE_ROLLS = ([2, 3], [4, 4], [5, 6])  # 5 + 8 + 11
BANK_AT_RACE = 24


async def jittered(client: Client, delay: float, **command: Any) -> dict[str, Any]:
    await asyncio.sleep(delay)
    return await client.command(**command)


async def race(
    table: Table,
    banker: Client,
    players: dict[str, Client],
    spectator: Client,
    *,
    trials: int,
    window: float,
    seed: int,
) -> None:
    """Run the trials in a started game of `table` (100 rounds); `players` by player id."""
    rng = random.Random(seed)
    expected = dict.fromkeys(players, 0)
    split = 0
    for _ in range(trials):
        for dice in SAFE_ROLLS:
            last = await banker.ok(type="roll", dice=dice)
        race_round = (await spectator.state_at_least(last))["round"]
        seven_task = jittered(banker, rng.uniform(0, window), type="roll", dice=[3, 4])
        bank_tasks = [jittered(p, rng.uniform(0, window), type="bank") for p in players.values()]
        seven, *banks = await asyncio.gather(seven_task, *bank_tasks)
        assert seven["type"] == "ack", seven
        in_time = set()
        for pid, answer in zip(players, banks):
            if answer["type"] == "ack":
                assert answer["seq"] < seven["seq"], "a BANK acked after the 7 was credited"
                in_time.add(pid)
            else:
                assert answer["code"] == "round_over", answer
        split += 0 < len(in_time) < len(players)
        for pid in in_time:
            expected[pid] += BANK_AT_RACE

        state = await spectator.state_at_least(seven["seq"])
        assert {p["id"]: p["score"] for p in state["players"]} == expected
        result = state["rounds_log"][race_round - 1]
        assert {b["player_id"] for b in result["banked"]} == in_time
        assert all(b["amount"] == BANK_AT_RACE for b in result["banked"])
        if len(in_time) < len(players):
            assert (result["ended_by"], result["bank"]) == ("seven", BANK_AT_RACE)
        else:  # everyone beat the 7, which opened the next round as a safe roll: end it
            for dice in ([1, 2], [1, 2], [6, 1]):
                await banker.ok(type="roll", dice=dice)

    assert split >= trials // 5, "the race was never close: widen the window"
    final = table.state()
    events = table.log()
    assert verify(events)
    assert_replays_to(events, final)
    for client in (banker, spectator, *players.values()):
        assert await client.state_at_least(final["seq"]) == final
        seqs = [s["seq"] for s in client.states()]
        assert all(a < b for a, b in pairwise(seqs)), "seqs strictly increase everywhere"
