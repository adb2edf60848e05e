"""State lives in Redis: any process answers any room, over HTTP and over sockets."""

from __future__ import annotations

import httpx

from tests.client import Client, Table
from tests.cluster.conftest import metric, poll, verify_chain


async def test_any_process_serves_any_room_and_one_process_owns_it(make_cluster) -> None:  # type: ignore[no-untyped-def]
    cluster = make_cluster(3)
    first, second, third = cluster.servers
    table = Table(first.base_url, rounds=10)
    table.base_url = second.base_url  # joining goes through another process
    ann, bob = table.join("Ann"), table.join("Bob")
    assert (
        httpx.get(f"{third.base_url}/api/rooms/{table.code}").json()["state"]["players"][1]["id"]
        == bob
    )
    assert httpx.get(f"{third.base_url}/api/rooms/ZZZZ").status_code == 404

    banker = await Client.connect(third.ws_url, table.code, table.banker_token)
    ann_ws = await Client.connect(first.ws_url, table.code, table.players["Ann"][1])
    bob_ws = await Client.connect(second.ws_url, table.code, table.players["Bob"][1])
    watcher = await Client.connect(third.ws_url, table.code)
    await banker.ok(type="start")
    for dice in ([2, 3], [4, 4], [5, 6], [1, 2]):
        await banker.ok(type="roll", dice=dice)
    await ann_ws.ok(type="bank")
    last = await bob_ws.ok(type="bank")  # everyone banked: the round ends
    for client in (banker, ann_ws, bob_ws, watcher):
        state = await client.state_at_least(last)
        assert {p["id"]: p["score"] for p in state["players"]} == {
            ann: 27,
            bob: 27,
        }  # 5 + 8 + 11 + 3
        seqs = [s["seq"] for s in client.states()]
        assert seqs == sorted(set(seqs)), "each connection sees states in seq order, once"
    assert (await ann_ws.command(type="bank", id="x"))["code"] == "round_over"

    assert cluster.owners() == [0], "the process that created the room owns it, alone"
    events = httpx.get(f"{third.base_url}/api/rooms/{table.code}/log").json()["events"]
    verify_chain(events)
    assert [e["type"] for e in events][-2:] == ["bank", "bank"]

    text = httpx.get(f"{first.base_url}/metrics").text
    assert metric(text, "bankit_rooms_owned") == 1
    assert metric(text, "bankit_connections") == 1
    assert metric(text, "bankit_events_applied_total") >= 8
    assert "bankit_fanout_seconds_bucket" in text and "bankit_redis_errors_total" in text
    assert poll(lambda: httpx.get(f"{second.base_url}/readyz").status_code == 200, 5, "ready")

    tokens = [table.banker_token, *(token for _, token in table.players.values())]
    for server in cluster.servers:
        log = server.log()
        assert not any(token in log for token in tokens), "a token was logged"
