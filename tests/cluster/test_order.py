"""One order across processes: BANKs racing a 7, the table spread over 3 processes.

On Redis Cluster the race runs in three rooms at once, one on each master's slots.
"""

from __future__ import annotations

import asyncio

import pytest

from app.bus.redis.wire import key
from tests.client import Client, Table
from tests.race import race
from tests.redis_cluster import RedisCluster

PLAYERS = 8


def tables_on_every_master(base_url: str, cluster: RedisCluster) -> list[Table]:
    """New tables until one lives on each master (codes are random: a few suffice)."""
    found: dict[int, Table] = {}
    for _ in range(100):
        table = Table(base_url, rounds=100)
        found.setdefault(cluster.node_of(key(table.code, "snap")), table)
        if len(found) == len(cluster.nodes):
            return list(found.values())
    raise AssertionError("no room on some master after 100 tables")


async def play_the_race(servers: list, table: Table, seed: int) -> None:  # type: ignore[type-arg]
    ids = [table.join(f"P{n}") for n in range(PLAYERS)]
    banker = await Client.connect(servers[1].ws_url, table.code, table.banker_token)
    players = {
        pid: await Client.connect(servers[n % 3].ws_url, table.code, table.players[f"P{n}"][1])
        for n, pid in enumerate(ids)
    }
    spectator = await Client.connect(servers[2].ws_url, table.code)
    await banker.ok(type="start")
    await race(table, banker, players, spectator, trials=10, window=0.006, seed=seed)


@pytest.mark.parametrize("backend", ["redis", "redis-cluster"])
async def test_arrival_at_redis_decides_between_banks_and_the_seven(make_cluster, backend) -> None:  # type: ignore[no-untyped-def]
    cluster = make_cluster(3, backend=backend)
    servers = cluster.servers
    if isinstance(cluster.redis, RedisCluster):
        tables = tables_on_every_master(servers[0].base_url, cluster.redis)
    else:
        tables = [Table(servers[0].base_url, rounds=100)]
    await asyncio.gather(*(play_the_race(servers, t, seed=4 + n) for n, t in enumerate(tables)))
