"""Redis goes away and comes back: clear errors meanwhile, then the games go on."""

from __future__ import annotations

import asyncio
import time

import httpx
import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from tests.client import Client, Table
from tests.cluster.conftest import poll, verify_chain


def readiness(base_url: str) -> int:
    return httpx.get(f"{base_url}/readyz", timeout=3).status_code


async def test_a_redis_restart_is_survived_and_errors_are_clear_meanwhile(make_cluster) -> None:  # type: ignore[no-untyped-def]
    cluster = make_cluster(2, aof=True)
    first, second = cluster.servers
    table = Table(first.base_url, rounds=10)
    ann = table.join("Ann")
    banker = await Client.connect(second.ws_url, table.code, table.banker_token)
    player = await Client.connect(first.ws_url, table.code, table.players["Ann"][1])
    await banker.ok(type="start")
    before = await banker.ok(type="roll", dice=[2, 3])

    cluster.redis.kill()  # SIGKILL; AOF with fsync always kept every commit
    for server in cluster.servers:
        poll(lambda: readiness(server.base_url) == 503, 5, "/readyz to say 503")
    started = time.monotonic()
    refused = await banker.command(timeout=5, type="roll", dice=[4, 4], id="during-outage")
    assert refused["type"] == "error" and refused["code"] == "unavailable", refused
    assert time.monotonic() - started < 4, "an error, not a hang"
    assert httpx.get(f"{second.base_url}/api/rooms/{table.code}").status_code == 503
    with pytest.raises(ConnectionClosed) as closed:  # a new socket is told to come back later
        async with connect(f"{second.ws_url}/ws/rooms/{table.code}", open_timeout=5) as ws:
            await ws.recv()
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 1013

    cluster.redis.start()
    for server in cluster.servers:
        poll(lambda: readiness(server.base_url) == 200, 10, "/readyz to say 200 again")
    deadline = time.monotonic() + 10
    while True:  # the client's retry, with the same id: applied once when the room is back
        answer = await banker.command(timeout=5, type="roll", dice=[4, 4], id="during-outage")
        if answer["type"] == "ack" or time.monotonic() > deadline:
            break
        assert answer["code"] == "unavailable", answer
        await asyncio.sleep(0.2)
    assert answer["type"] == "ack", answer
    assert answer["seq"] == before + 1, "the game went on from its persisted snapshot"
    last = await player.ok(type="bank")
    for client in (banker, player):
        state = await client.state_at_least(last)
        assert {p["id"]: p["score"] for p in state["players"]} == {ann: 13}
    events = table.log()
    verify_chain(events)
    assert [e["data"]["dice"] for e in events if e["type"] == "roll"] == [[2, 3], [4, 4]]
