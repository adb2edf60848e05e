"""One process, no Redis: a SIGKILL and a restart on the same data directory lose nothing."""

from __future__ import annotations

import asyncio
import json
import sqlite3
import time
from pathlib import Path
from typing import Any

import httpx

from app.rooms.eventlog import verify
from tests.client import Client, Table
from tests.conftest import ServerProcess, start_server


def restarted(tmp_path: Path, server: ServerProcess, env: dict[str, str]) -> ServerProcess:
    """SIGKILL `server`, then start it again with the same env on the same port."""
    server.kill()
    return start_server(tmp_path, env, port=server.port)


def without_presence(state: dict[str, Any]) -> dict[str, Any]:
    players = [{k: v for k, v in p.items() if k != "connected"} for p in state["players"]]
    handover = {k: v for k, v in state["handover"].items() if k != "host_connected"}
    return {**state, "players": players, "handover": handover}


async def poll(predicate: Any, timeout: float = 10.0, what: str = "") -> Any:
    """Retry a blocking check (an HTTP GET) until it holds, up to `timeout` s."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what or predicate}")
        await asyncio.sleep(0.05)


async def test_a_killed_server_restarts_mid_round_with_every_acked_command(
    tmp_path: Path,
) -> None:
    env = {"BANKIT_DATA_DIR": str(tmp_path / "data")}
    server = start_server(tmp_path, env)
    table = Table(server.base_url, rounds=5)
    ids = {name: table.join(name) for name in ("Ann", "Bob", "Cat", "Dan")}
    banker = await Client.connect(server.ws_url, table.code, table.banker_token)
    ann = await Client.connect(server.ws_url, table.code, table.players["Ann"][1])
    bob = await Client.connect(server.ws_url, table.code, table.players["Bob"][1])
    acked = {
        "start": await banker.ok(type="start", id="b-start"),
        "roll1": await banker.ok(type="roll", dice=[3, 4], id="b-roll1"),  # 70
        "roll2": await banker.ok(type="roll", dice=[2, 2], id="b-roll2"),  # 74
        "ann": await ann.ok(type="bank", id="ann-bank"),  # Ann banks 74
        "roll3": await banker.ok(type="roll", dice=[6, 5], id="b-roll3"),  # 85
        "cat": await banker.ok(type="bank", player_id=ids["Cat"], id="b-cat"),  # Cat: 85
    }
    await ann.state_at_least(acked["cat"])
    before, log_before = table.state(), table.log()
    assert before["bank"] == 85 and before["status"] != "finished"
    assert {p["name"]: p["connected"] for p in before["players"]}["Ann"]

    server = restarted(tmp_path, server, env)
    for phone in (banker, ann, bob):
        await phone.wait_closed()
    after = await poll(
        lambda: (s := table.state()) and not any(p["connected"] for p in s["players"]) and s,
        what="the dead process's sockets forgotten",
    )
    assert without_presence(after) == without_presence(before)
    assert table.log() == log_before and verify(log_before)

    banker = await Client.connect(server.ws_url, table.code, table.banker_token)
    ann = await Client.connect(server.ws_url, table.code, table.players["Ann"][1])
    bob = await Client.connect(server.ws_url, table.code, table.players["Bob"][1])
    assert (await ann.state_at_least(before["seq"]))["bank"] == 85
    assert await ann.ok(type="bank", id="ann-bank") == acked["ann"], "a retry: the first seq"
    assert await banker.ok(type="roll", dice=[1, 6], id="b-roll3") == acked["roll3"]
    acked["bob"] = await bob.ok(type="bank", id="bob-bank")  # Bob banks 85
    acked["roll4"] = await banker.ok(type="roll", dice=[5, 5], id="b-roll4")  # 170
    state = await bob.state_at_least(acked["roll4"])
    assert (state["round"], state["bank"]) == (1, 170), "doubles double the bank, Dan plays on"

    log = table.log()
    assert verify(log)
    assert log[: len(log_before)] == log_before
    by_seq = {entry["seq"]: entry for entry in log}
    assert sorted(acked.values()) == sorted(set(acked.values())), "each ack its own seq"
    assert all(seq in by_seq for seq in acked.values())
    banks = [e["data"]["player_id"] for e in log if e["type"] == "bank"]
    assert sorted(banks) == sorted([ids["Ann"], ids["Cat"], ids["Bob"]]), "once each"
    assert len(log) == 1 + 4 + len(acked), "create, four joins, and the acked commands"
    server.kill()


async def test_a_finished_game_is_still_viewable_after_a_restart(tmp_path: Path) -> None:
    env = {"BANKIT_DATA_DIR": str(tmp_path / "data")}
    server = start_server(tmp_path, env)
    table = Table(server.base_url, rounds=1)
    table.join("Ann")
    banker = await Client.connect(server.ws_url, table.code, table.banker_token)
    await banker.ok(type="start")
    await banker.ok(type="roll", dice=[3, 4])
    await banker.ok(type="roll", dice=[3, 4])
    await banker.ok(type="roll", dice=[3, 4])
    last = await banker.ok(type="roll", dice=[2, 5])  # the 7 of roll 4 ends the only round
    finished = await banker.state_at_least(last)
    assert finished["status"] == "finished"
    log_before = table.log()
    server.kill()
    with sqlite3.connect(tmp_path / "data" / "bankit.sqlite3") as conn:
        (raw,) = conn.execute("SELECT snapshot FROM rooms WHERE code = ?", (table.code,)).fetchone()
        (logged,) = conn.execute(
            "SELECT count(*) FROM entries WHERE code = ? AND note IS NOT NULL", (table.code,)
        ).fetchone()
    stored = json.loads(raw)
    assert "state" not in stored, "one process stores no view: the log rebuilds it"
    assert stored["seq"] == 1, "the snapshot is written now and then, not at every event"
    assert logged == finished["seq"] - 1, "every later event is in the log with its note"

    server = restarted(tmp_path, server, env)
    assert without_presence(table.state()) == without_presence(finished)
    assert table.log() == log_before and verify(log_before)
    server.kill()


async def test_a_reaped_room_is_gone_from_disk_and_after_a_restart(tmp_path: Path) -> None:
    data = tmp_path / "data"
    env = {
        "BANKIT_DATA_DIR": str(data),
        "BANKIT_ROOM_IDLE_SECONDS": "0.5",
        "BANKIT_REAP_INTERVAL_SECONDS": "0.1",
    }
    server = start_server(tmp_path, env)
    table = Table(server.base_url)
    table.join("Ann")
    url = f"{server.base_url}/api/rooms/{table.code}"
    assert httpx.get(url).status_code == 200
    await poll(lambda: httpx.get(url).status_code == 404, what="the room reaped")
    with sqlite3.connect(data / "bankit.sqlite3") as conn:
        assert conn.execute("SELECT count(*) FROM rooms").fetchone() == (0,)
        assert conn.execute("SELECT count(*) FROM entries").fetchone() == (0,)

    server = restarted(tmp_path, server, env)
    assert httpx.get(url).status_code == 404
    assert httpx.get(f"{url}/log").status_code == 404
    server.kill()
