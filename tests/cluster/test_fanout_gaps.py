"""Pub/sub loses what is published while a subscriber reconnects: gaps are repaired
from the stored snapshot, and no socket ever gets an older state after a newer one."""

from __future__ import annotations

import asyncio

from tests.client import Client, Table
from tests.cluster.conftest import verify_chain


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
