"""One order across processes: BANKs racing a 7, the table spread over 3 processes."""

from __future__ import annotations

from tests.client import Client, Table
from tests.race import race

PLAYERS = 8


async def test_arrival_at_redis_decides_between_banks_and_the_seven(make_cluster) -> None:  # type: ignore[no-untyped-def]
    servers = make_cluster(3).servers
    table = Table(servers[0].base_url, rounds=100)
    ids = [table.join(f"P{n}") for n in range(PLAYERS)]
    banker = await Client.connect(servers[1].ws_url, table.code, table.banker_token)
    players = {
        pid: await Client.connect(servers[n % 3].ws_url, table.code, table.players[f"P{n}"][1])
        for n, pid in enumerate(ids)
    }
    spectator = await Client.connect(servers[2].ws_url, table.code)
    await banker.ok(type="start")
    await race(table, banker, players, spectator, trials=10, window=0.006, seed=4)
