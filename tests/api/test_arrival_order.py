"""Arrival order decides: BANKs racing a 7, over real sockets to a real server."""

from __future__ import annotations

from tests.client import Client, Table
from tests.conftest import ServerProcess
from tests.race import race

PLAYERS = 8


async def test_banks_that_arrive_before_the_seven_count_and_the_rest_are_round_over(
    server: ServerProcess,
) -> None:
    table = Table(server.base_url, rounds=100)
    ids = [table.join(f"P{n}") for n in range(PLAYERS)]
    banker = await Client.connect(server.ws_url, table.code, table.banker_token)
    players = {
        pid: await Client.connect(server.ws_url, table.code, table.players[f"P{n}"][1])
        for n, pid in enumerate(ids)
    }
    spectator = await Client.connect(server.ws_url, table.code)
    await banker.ok(type="start")
    await race(table, banker, players, spectator, trials=25, window=0.004, seed=2026)
