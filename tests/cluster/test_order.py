"""One order across processes: BANKs racing a 7, the table spread over 3 processes."""

from __future__ import annotations

import asyncio
import random
from typing import Any

from tests.client import Client, Table
from tests.cluster.conftest import verify_chain

PLAYERS = 8
TRIALS = 10
SAFE_ROLLS = ([2, 3], [4, 4], [5, 6])  # 5 + 8 + 11
BANK_AT_RACE = 24


async def jittered(client: Client, delay: float, **command: Any) -> dict[str, Any]:
    await asyncio.sleep(delay)
    return await client.command(**command)


async def test_arrival_at_redis_decides_between_banks_and_the_seven(make_cluster) -> None:  # type: ignore[no-untyped-def]
    cluster = make_cluster(3)
    servers = cluster.servers
    table = Table(servers[0].base_url, rounds=100)
    ids = [table.join(f"P{n}") for n in range(PLAYERS)]
    banker = await Client.connect(servers[1].ws_url, table.code, table.banker_token)
    players = [
        await Client.connect(servers[n % 3].ws_url, table.code, table.players[f"P{n}"][1])
        for n in range(PLAYERS)
    ]
    spectator = await Client.connect(servers[2].ws_url, table.code)
    await banker.ok(type="start")
    rng = random.Random(4)
    expected = {pid: 0 for pid in ids}
    split = 0

    for _ in range(TRIALS):
        for dice in SAFE_ROLLS:
            last = await banker.ok(type="roll", dice=dice)
        race_round = (await spectator.state_at_least(last))["round"]
        window = 0.006
        tasks = [
            asyncio.create_task(jittered(banker, rng.uniform(0, window), type="roll", dice=[3, 4]))
        ]
        tasks += [
            asyncio.create_task(jittered(p, rng.uniform(0, window), type="bank")) for p in players
        ]
        seven, *banks = await asyncio.gather(*tasks)
        assert seven["type"] == "ack", seven
        in_time = set()
        for pid, answer in zip(ids, banks):
            if answer["type"] == "ack":
                assert answer["seq"] < seven["seq"], "a BANK acked after the 7 was credited"
                in_time.add(pid)
            else:
                assert answer["code"] == "round_over", answer
        split += 0 < len(in_time) < PLAYERS
        for pid in in_time:
            expected[pid] += BANK_AT_RACE
        state = await spectator.state_at_least(seven["seq"])
        assert {p["id"]: p["score"] for p in state["players"]} == expected
        assert {b["player_id"] for b in state["rounds_log"][race_round - 1]["banked"]} == in_time
        if len(in_time) == PLAYERS:  # the 7 opened the next round as a safe roll: end it
            for dice in ([1, 2], [1, 2], [6, 1]):
                await banker.ok(type="roll", dice=dice)

    assert split >= 2, "the race was never close: widen the window"
    final = table.state()
    for client in [banker, spectator, *players]:
        assert await client.state_at_least(final["seq"]) == final
        seqs = [state["seq"] for state in client.states()]
        assert all(a < b for a, b in zip(seqs, seqs[1:])), "seqs strictly increase everywhere"
    verify_chain(table.log())
