"""Pub/sub loses what is published while a subscriber reconnects: gaps are repaired
from the stored snapshot, and no socket ever gets an older state after a newer one."""

from __future__ import annotations

import asyncio
from typing import Any

import orjson

from app.api.connection import Connection, Identity
from app.api.hub import Hub
from app.bus.base import Frame
from tests.bus.conftest import until
from tests.client import Client, Table
from tests.cluster.conftest import verify_chain


class FakeSocket:
    application_state = None

    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []
        self.closed: int | None = None

    async def send_text(self, text: str) -> None:
        self.sent.append(orjson.loads(text))

    async def close(self, code: int = 1000) -> None:
        self.closed = code


class FakeBus:
    node_id = "n-test"

    async def subscribe(self, code: str) -> None: ...

    async def unsubscribe(self, code: str) -> None: ...


class FakeRegistry:
    def __init__(self, snapshot: dict[str, Any]) -> None:
        self.stored = snapshot
        self.reads = 0

    async def snapshot(self, code: str) -> dict[str, Any]:
        self.reads += 1
        return self.stored


def state(seq: int) -> dict[str, Any]:
    return {"code": "ROOM", "seq": seq, "players": [{"id": "p1", "connected": True}]}


def frame(seq: int) -> Frame:
    return Frame("state", seq, orjson.dumps({"type": "state", "state": state(seq)}).decode())


async def test_a_gap_fetches_the_snapshot_and_older_states_are_never_sent() -> None:
    registry = FakeRegistry({"seq": 10, "state": state(10), "tokens": {"h": "p1"}})
    hub = Hub(FakeBus(), registry)  # type: ignore[arg-type]
    sockets = [FakeSocket(), FakeSocket()]
    conns = [
        Connection(s, "ROOM", identity, queue_limit=16, rate=10, burst=10)  # type: ignore[arg-type]
        for s, identity in zip(sockets, (Identity("spectator"), Identity("player", "p2")))
    ]
    for conn in conns:
        await hub.add(conn)
        conn.last_seq = 5
        conn.start('{"type":"welcome"}')
    hub.on_frame("ROOM", frame(6))
    assert registry.reads == 0, "no gap, no fetch"
    hub.on_frame("ROOM", frame(9))  # 7 and 8 were lost
    await until(lambda: registry.reads == 1 and not hub._resyncing, what="the resync")
    hub.on_frame("ROOM", frame(8))  # late and old: dropped
    await until(lambda: sockets[0].sent and sockets[0].sent[-1]["type"] == "presence", what="sends")
    seqs = [m["state"]["seq"] for m in sockets[0].sent if m["type"] == "state"]
    assert seqs[-1] == 10 and 8 not in seqs, seqs  # unsent older states are replaced
    assert all(a < b for a, b in zip(seqs, seqs[1:])), seqs
    assert sockets[0].sent[-1] == {"type": "presence", "connected": {"p1": True}}
    await until(lambda: sockets[1].closed == 4401, what="p2, kicked meanwhile, to be closed")
    for conn in conns:
        await conn.stop()


async def test_frames_lost_in_a_subscription_break_reach_every_socket_anyway(make_cluster) -> None:  # type: ignore[no-untyped-def]
    cluster = make_cluster(2)
    first, second = cluster.servers
    table = Table(first.base_url, rounds=10)
    table.join("Ann")
    banker = await Client.connect(first.ws_url, table.code, table.banker_token)
    watchers = [await Client.connect(server.ws_url, table.code) for server in (first, second)]
    await banker.ok(type="start")
    sent = []
    for round_ in range(3):  # break every process's subscription while commands flow
        cluster.redis.command("CLIENT", "KILL", "TYPE", "pubsub")
        for dice in ([2, 3], [1, 2]):
            command_id = f"r{round_}-{dice[0]}"
            sent.append(command_id)
            await banker.send({"type": "roll", "dice": dice, "id": command_id})
        await asyncio.sleep(0.1)
    # Acks may be lost with the break too: retrying with the same id is safe.
    for command_id, dice in zip(sent, [[2, 3], [1, 2]] * 3):
        answer = await banker.command(type="roll", dice=dice, id=command_id)
        assert answer["type"] == "ack", answer
    final = table.state()
    assert final["roll_count"] == 6
    for client in (banker, *watchers):
        assert await client.state_at_least(final["seq"], timeout=10) == final
        seqs = [s["seq"] for s in client.states()]
        assert all(a < b for a, b in zip(seqs, seqs[1:])), seqs
    verify_chain(table.log())
