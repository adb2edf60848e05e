"""A kill -9 of the game's owner at the moment the game finishes: its result reaches the
group exactly once, after a restart (one process, SQLite) and after a takeover (two
processes sharing a real redis-server)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.client import Client
from tests.cluster.conftest import ENV
from tests.conftest import ServerProcess, start_server
from tests.games.group.season import Group, host_socket
from tests.redis_server import RedisServer

DYING = ("-m", "tests.games.group.dying_group")
STEPS = ["before_report", "after_report"]


async def finish_and_die(group: Group, server: ServerProcess, watch_at: str = "") -> str:
    """A BANK game of the group, played to its last command: the owner dies as the game
    tells the group its result (its answer may be lost with it). `watch_at`: another
    process where spectators watch the group and the game (so it adopts them)."""
    ann, bob = group.join("Ann"), group.join("Bob")
    code = await group.start("bank", rounds=1)
    group.seat("Ann", code), group.seat("Bob", code)
    if watch_at:
        for room, collection in ((group.code, "groups"), (code, "rooms")):
            watcher = await Client.connect(watch_at, room, collection=collection)
            await watcher.wait_for(lambda m: m["type"] == "welcome")
    banker = await host_socket(group, code)
    for command in ({"type": "start"}, {"type": "roll", "dice": [6, 4]}):
        await banker.ok(**command)
    await banker.ok(type="bank", player_id=ann)
    await banker.send({"type": "bank", "player_id": bob, "id": "last"})  # all banked: over
    assert server.process.wait(30) == -9, "the owner died at the report"
    return code


async def recorded_once(group: Group, code: str) -> None:
    line = await group.recorded(code)
    assert [row["score"] for row in line["result"]] == [10, 10]
    events: list[dict[str, Any]] = group.log()
    told = [e for e in events if e["data"].get("code") == code and e["data"].get("result")]
    assert len(told) == 1, "recorded exactly once"


@pytest.mark.parametrize("step", STEPS)
async def test_one_process_records_the_result_once_across_a_kill(tmp_path: Path, step: str) -> None:
    env = {"BANKIT_DATA_DIR": str(tmp_path / "data")}
    dying = start_server(tmp_path, {**env, "BANKIT_TEST_DIE_AT": step}, command=DYING)
    group = Group(dying.base_url, dying.ws_url)
    code = await finish_and_die(group, dying)
    server = start_server(tmp_path, env, port=dying.port)
    try:
        await recorded_once(group, code)
    finally:
        group.http.close()
        server.stop()


@pytest.mark.parametrize("step", STEPS)
async def test_two_processes_record_the_result_once_across_a_kill(
    tmp_path: Path, step: str
) -> None:
    redis = RedisServer(tmp_path)
    env = {**ENV, "REDIS_URL": redis.url}
    dying = start_server(tmp_path, {**env, "BANKIT_TEST_DIE_AT": step}, command=DYING)
    other = start_server(tmp_path, env)
    try:
        group = Group(dying.base_url, dying.ws_url)
        code = await finish_and_die(group, dying, watch_at=other.ws_url)
        group.move_to(other.base_url)
        await recorded_once(group, code)
        group.http.close()
    finally:
        other.kill()
        dying.kill()
        redis.stop()
