"""Phones drop and come back, retry, get kicked; servers drain, free rooms, fill up."""

from __future__ import annotations

import asyncio
import re
import signal
import time
from collections.abc import Callable

import httpx

from app.rooms.eventlog import verify
from tests.client import Client, Table, assert_replays_to
from tests.conftest import ServerProcess

MakeServer = Callable[..., ServerProcess]


def presence_of(player_id: str, connected: bool) -> Callable[[dict[str, object]], bool]:
    def match(message: dict[str, object]) -> bool:
        return (
            message.get("type") == "presence" and message["connected"].get(player_id) is connected
        )  # type: ignore[union-attr]

    return match


async def test_a_phone_that_reconnects_keeps_its_seat_and_the_others_see_it(
    server: ServerProcess,
) -> None:
    table = Table(server.base_url)
    ann_id, bob_id = table.join("Ann"), table.join("Bob")
    banker = await Client.connect(server.ws_url, table.code, table.banker_token)
    ann = await Client.connect(server.ws_url, table.code, table.players["Ann"][1])
    await banker.wait_for(presence_of(ann_id, True))
    await banker.ok(type="start")
    seq = await banker.ok(type="roll", dice=[5, 5])

    await ann.close()
    gone = await banker.wait_for(presence_of(ann_id, False))
    assert gone["connected"] == {ann_id: False, bob_id: False}
    await banker.ok(type="roll", dice=[1, 2])  # the game goes on without her

    mark = len(banker.messages)
    ann = await Client.connect(server.ws_url, table.code, table.players["Ann"][1])
    welcome = await ann.wait_for(lambda m: True)
    assert welcome["type"] == "welcome"
    assert welcome["you"] == {"role": "player", "player_id": ann_id}
    assert welcome["state"]["seq"] == seq + 1 and welcome["state"]["bank"] == 13
    await banker.wait_for(presence_of(ann_id, True), start=mark)
    answer = await ann.ok(type="bank")
    state = await banker.state_at_least(answer)
    assert [p["score"] for p in state["players"]] == [13, 0]
    assert state["players"][0]["connected"] is True


async def test_two_phones_on_one_token_count_as_connected_until_both_leave(
    server: ServerProcess,
) -> None:
    table = Table(server.base_url)
    ann_id = table.join("Ann")
    watcher = await Client.connect(server.ws_url, table.code)
    phone = await Client.connect(server.ws_url, table.code, table.players["Ann"][1])
    tablet = await Client.connect(server.ws_url, table.code, table.players["Ann"][1])
    await watcher.wait_for(presence_of(ann_id, True))
    await phone.close()
    assert (await tablet.command(type="ping"))["type"] == "pong"
    assert not any(presence_of(ann_id, False)(m) for m in watcher.messages)
    await tablet.close()
    await watcher.wait_for(presence_of(ann_id, False))


async def test_a_retried_command_id_is_acked_with_its_seq_and_not_applied_again(
    server: ServerProcess,
) -> None:
    table = Table(server.base_url)
    table.join("Ann")
    banker = await Client.connect(server.ws_url, table.code, table.banker_token)
    await banker.ok(type="start")
    first = await banker.command(type="roll", dice=[3, 3], id="roll-1")
    await banker.close()

    again = await Client.connect(server.ws_url, table.code, table.banker_token)  # a new socket
    retry = await again.command(type="roll", dice=[3, 3], id="roll-1")
    assert retry == first
    state = table.state()
    assert (state["seq"], state["roll_count"], state["bank"]) == (first["seq"], 1, 6)
    assert [e["type"] for e in table.log()].count("roll") == 1

    ann = await Client.connect(server.ws_url, table.code, table.players["Ann"][1])
    own = await ann.command(type="bank", id="roll-1")  # ids are per token
    assert own["type"] == "ack" and own["seq"] == first["seq"] + 1


async def test_a_refused_command_can_be_retried_with_the_same_id(server: ServerProcess) -> None:
    table = Table(server.base_url)
    table.join("Ann")
    banker = await Client.connect(server.ws_url, table.code, table.banker_token)
    await banker.refused("not_started", type="roll", dice=[3, 3], id="r")
    await banker.ok(type="start")
    assert (await banker.command(type="roll", dice=[3, 3], id="r"))["type"] == "ack"


async def test_undo_takes_back_the_roll_and_the_banks_after_it(server: ServerProcess) -> None:
    table = Table(server.base_url)
    ann_id = table.join("Ann")
    table.join("Bob")
    banker = await Client.connect(server.ws_url, table.code, table.banker_token)
    ann = await Client.connect(server.ws_url, table.code, table.players["Ann"][1])
    await banker.ok(type="start")
    before_seq = await banker.ok(type="roll", dice=[2, 2])
    before = await banker.state_at_least(before_seq)
    await banker.ok(type="roll", dice=[6, 5])
    await ann.ok(type="bank")
    undo_seq = await banker.ok(type="undo")
    after = await banker.state_at_least(undo_seq)
    strip = lambda s: {k: v for k, v in s.items() if k != "seq"}  # noqa: E731
    assert strip(after) == strip(before)
    assert after["seq"] == undo_seq > before_seq
    assert (await ann.command(type="bank"))["type"] == "ack"  # Ann may bank again
    log = table.log()
    assert log[-2]["type"] == "undo" and log[-2]["data"]["undone_seq"] == before_seq + 1
    assert verify(log)
    assert_replays_to(log, table.state())
    assert ann_id in {p["id"] for p in after["players"]}


async def test_a_kicked_player_is_closed_with_4401_and_its_name_is_free(
    server: ServerProcess,
) -> None:
    table = Table(server.base_url)
    bob_id = table.join("Bob")
    banker = await Client.connect(server.ws_url, table.code, table.banker_token)
    bob = await Client.connect(server.ws_url, table.code, table.players["Bob"][1])
    await bob.wait_for(lambda m: m.get("type") == "welcome")
    seq = await banker.ok(type="kick", player_id=bob_id)
    assert await bob.wait_closed() == 4401
    assert (await banker.state_at_least(seq))["players"] == []
    retry = await Client.connect(server.ws_url, table.code, table.players["Bob"][1])
    assert await retry.wait_closed() == 4401
    table.join("Bob")
    assert [e["type"] for e in table.log()] == ["create", "join", "kick", "join"]


async def test_sigterm_closes_every_socket_with_1001(fresh_server: MakeServer) -> None:
    proc = fresh_server()
    table = Table(proc.base_url)
    table.join("Ann")
    clients = [
        await Client.connect(proc.ws_url, table.code, table.banker_token),
        await Client.connect(proc.ws_url, table.code, table.players["Ann"][1]),
        await Client.connect(proc.ws_url, table.code),
    ]
    for client in clients:
        await client.wait_for(lambda m: m.get("type") == "welcome")
    await asyncio.to_thread(proc.stop)
    assert [await c.wait_closed() for c in clients] == [1001, 1001, 1001]
    assert proc.process.returncode in (0, -signal.SIGTERM)  # uvicorn re-raises the signal
    assert "Application shutdown complete" in proc.log()


async def test_no_token_ever_reaches_the_server_log(fresh_server: MakeServer) -> None:
    proc = fresh_server(BANKIT_LOG_LEVEL="debug")
    table = Table(proc.base_url)
    table.join("Ann")
    ann = await Client.connect(proc.ws_url, table.code, table.players["Ann"][1])
    bad = await Client.connect(proc.ws_url, table.code, "guessed-token")
    assert (await ann.command(type="ping"))["type"] == "pong"
    await bad.wait_closed()
    await ann.close()
    await asyncio.to_thread(proc.stop)
    log = proc.log()
    assert "token=<redacted>" in log  # debug logging prints the request line, redacted
    assert re.search(r"token=(?!<redacted>)", log) is None
    for secret in (table.banker_token, table.players["Ann"][1], "guessed-token"):
        assert secret not in log


def wait_until(predicate: Callable[[], bool], timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "condition not met in time"
        time.sleep(0.05)


async def test_idle_rooms_are_freed_and_finished_ones_kept_a_while(
    fresh_server: MakeServer,
) -> None:
    proc = fresh_server(
        BANKIT_ROOM_IDLE_SECONDS="0.5",
        BANKIT_FINISHED_ROOM_SECONDS="30",
        BANKIT_REAP_INTERVAL_SECONDS="0.1",
    )
    idle = Table(proc.base_url)
    busy = Table(proc.base_url)
    busy.join("Ann")
    ann = await Client.connect(proc.ws_url, busy.code, busy.players["Ann"][1])
    finished = Table(proc.base_url, rounds=1)
    finished.join("Bob")
    banker = await Client.connect(proc.ws_url, finished.code, finished.banker_token)
    await banker.ok(type="start")
    await banker.ok(type="roll", dice=[1, 2])
    await banker.ok(type="bank", player_id=finished.players["Bob"][0])
    await banker.close()

    watcher = await Client.connect(proc.ws_url, idle.code)
    await asyncio.to_thread(
        wait_until, lambda: httpx.get(f"{proc.base_url}/api/rooms/{idle.code}").status_code == 404
    )
    assert await watcher.wait_closed() == 4404
    assert (
        httpx.get(f"{proc.base_url}/api/rooms/{finished.code}").json()["state"]["status"]
        == "finished"
    )
    assert httpx.get(f"{proc.base_url}/api/rooms/{busy.code}").status_code == 200
    await ann.close()
    await asyncio.to_thread(
        wait_until, lambda: httpx.get(f"{proc.base_url}/api/rooms/{busy.code}").status_code == 404
    )


async def test_a_full_server_says_so(fresh_server: MakeServer) -> None:
    # In memory no room can make way by waiting on disk (tests/api/test_hostile.py, row 3);
    # no share of the connections is kept for seats here.
    proc = fresh_server(
        BANKIT_STORE="memory",
        BANKIT_MAX_ROOMS="2",
        BANKIT_MAX_CONNECTIONS="2",
        BANKIT_SEAT_RESERVE="0",
    )
    table = Table(proc.base_url)
    Table(proc.base_url)
    response = httpx.post(f"{proc.base_url}/api/rooms", json={})
    assert response.status_code == 503
    assert response.json()["error"]["code"] == "server_full"
    first = await Client.connect(proc.ws_url, table.code)
    second = await Client.connect(proc.ws_url, table.code)
    await first.wait_for(lambda m: m["type"] == "welcome")
    await second.wait_for(lambda m: m["type"] == "welcome")
    third = await Client.connect(proc.ws_url, table.code)
    assert await third.wait_closed() == 1013
    await first.close()
    deadline = time.monotonic() + 5
    while True:  # the freed place is taken as soon as the server has seen the close
        fourth = await Client.connect(proc.ws_url, table.code)
        try:
            first_message = await fourth.wait_for(lambda m: True)
        except ConnectionError:  # closed with 1013: the server had not seen the close yet
            first_message = {}
        if first_message.get("type") == "welcome" or time.monotonic() > deadline:
            break
    assert first_message.get("type") == "welcome", fourth.close_code
