"""The owner's one hop on Redis (`RoomActor.take`, `RedisBus.commit_soon`): a command
from a socket on the process that owns its room is applied the moment it arrives when
nothing waits before it, and committed by the same fenced script without entering the
room's stream; it never overtakes a command already in the stream, a stale owner's
commit stores nothing, and the owner's own frames come back with their view."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from pathlib import Path

import orjson
import redis

from app.bus.redis.bus import RedisBus, key
from app.config import Settings
from app.games.registry import GameRegistry
from app.rooms.envelope import CommandEnvelope, PresenceEnvelope
from app.rooms.registry import RoomRegistry
from tests.bus.conftest import Recorder, until
from tests.redis_server import RedisServer


def command(
    bus: RedisBus, role: str, pid: str | None, id_: str | None, **cmd: object
) -> CommandEnvelope:
    """A command as a socket of this process sends it (answered to `k-<id>`)."""
    server = cmd.get("type") == "join"
    th = f"{pid}".ljust(64, "0") if server else None
    return CommandEnvelope(
        role,
        pid if not server else None,
        id_,
        orjson.dumps(cmd).decode(),
        bus.node_id,
        f"k-{id_ or pid}",
        th=th,
        server=server,
    )


@contextlib.asynccontextmanager
async def owner(
    tmp_path: Path,
) -> AsyncIterator[tuple[RoomRegistry, RedisBus, Recorder, redis.Redis]]:
    server = RedisServer(tmp_path)
    bus = RedisBus(server.url)
    recorder = Recorder()
    settings = Settings(data_dir=tmp_path)
    registry = RoomRegistry(bus, settings, GameRegistry.load(settings))
    client = redis.Redis(port=server.port)
    try:
        await bus.start(recorder.on_frame, recorder.on_reply)
        await registry.start()
        yield registry, bus, recorder, client
    finally:
        await registry.close()
        await bus.close()
        client.close()
        server.stop()


def stored_seq(client: redis.Redis, code: str) -> int:
    return int(orjson.loads(client.get(key(code, "snap")))["seq"])  # type: ignore[arg-type]


async def test_a_local_command_skips_the_stream_but_never_overtakes_it(tmp_path: Path) -> None:
    async with owner(tmp_path) as (registry, bus, recorder, client):
        code = (await registry.create(registry.games["bank"], {"rounds": 3}, ["b" * 64]))["code"]
        await bus.subscribe(code)  # a socket of this process is in the room
        actor = registry.actors[code]
        await until(lambda: actor.waiting and bus.idle(code), what="the owner waiting")

        await registry.submit(
            code, command(bus, "system", "p1", None, type="join", name="Ann", player_id="p1")
        )
        bob = command(bus, "system", "p2", None, type="join", name="Bob", player_id="p2")
        assert not registry.submit_nowait(code, bob), "Bob's join overtook Ann's, in the stream"
        assert actor.room.seq == 1
        await registry.submit(code, bob)
        await until(lambda: stored_seq(client, code) == 3, what="both joins committed")
        record = orjson.loads(client.get(key(code, "snap")))  # type: ignore[arg-type]
        assert [p["id"] for p in record["state"]["players"]] == ["p1", "p2"]

        await until(lambda: actor.waiting and bus.idle(code), what="the stream read")
        in_stream = client.xlen(key(code, "cmds"))
        start = command(bus, "banker", None, "c1", type="start")
        assert registry.submit_nowait(code, start), "nothing waited: it is taken at once"
        assert actor.room.seq == 4 and not actor.waiting, "applied now, its commit in flight"
        answer = await until(lambda: dict(recorder.replies).get("k-c1"), what="the ack")
        assert orjson.loads(answer) == {"type": "ack", "id": "c1", "seq": 4}
        assert stored_seq(client, code) == 4, "answered only once stored"
        assert client.xlen(key(code, "cmds")) == in_stream, "it never entered the stream"
        frame = await until(lambda: [f for f in recorder.of(code) if f.seq == 4], what="frames")
        assert frame[0].view is not None and frame[0].ops is not None, (
            "the owner's own frame came back as the room made it"
        )

        again = command(bus, "banker", None, "c1", type="start")  # a retry: deduplicated
        await until(lambda: actor.waiting and bus.idle(code), what="the commit done")
        assert registry.submit_nowait(code, again)
        await until(lambda: len([k for k, _ in recorder.replies if k == "k-c1"]) == 2)
        assert actor.room.seq == 4 and stored_seq(client, code) == 4

        await until(lambda: actor.waiting and bus.idle(code), what="the retry done")
        roll = command(bus, "banker", None, "c2", type="roll", dice=[3, 4])
        on_its_way = asyncio.create_task(registry.submit(code, roll))  # its XADD not back yet
        await asyncio.sleep(0)
        bank = command(bus, "player", "p1", "c3", type="bank")
        assert not registry.submit_nowait(code, bank), "it overtook a command on its way"
        await on_its_way


async def test_a_stale_owner_taking_a_command_stores_nothing_and_steps_down(
    tmp_path: Path,
) -> None:
    async with owner(tmp_path) as (registry, bus, recorder, client):
        code = (await registry.create(registry.games["bank"], {"rounds": 3}, ["b" * 64]))["code"]
        await bus.subscribe(code)
        actor = registry.actors[code]
        await until(lambda: actor.waiting and bus.idle(code), what="the owner waiting")
        client.set(key(code, "lease"), "99 n-another", px=60_000)  # taken over meanwhile

        join = command(bus, "system", "p1", None, type="join", name="Ann", player_id="p1")
        assert registry.submit_nowait(code, join)
        assert actor.room.seq == 2, "applied in memory, its commit on its way"
        await until(lambda: code not in registry.actors, what="the stale owner stepping down")
        assert stored_seq(client, code) == 1, "the fenced commit stored nothing"
        assert client.llen(key(code, "log")) == 1
        assert "k-p1" not in dict(recorder.replies), "nobody was answered"
        assert not [f for f in recorder.of(code) if f.seq == 2], "nothing was published"


async def test_commands_taken_back_to_back_are_chained_by_the_log(tmp_path: Path) -> None:
    """A command taken while the commit of the one before is on its way is applied at
    once and its commit sent behind; a commit that does not extend the log it was made
    for (the one before it did not happen) stores nothing."""
    async with owner(tmp_path) as (registry, bus, recorder, client):
        code = (await registry.create(registry.games["bank"], {"rounds": 3}, ["b" * 64]))["code"]
        await bus.subscribe(code)
        actor = registry.actors[code]
        await until(lambda: actor.waiting and bus.idle(code), what="the owner waiting")
        assert actor.logged == client.llen(key(code, "log")) == 1
        joins = [
            command(bus, "system", f"p{n}", None, type="join", name=f"P{n}", player_id=f"p{n}")
            for n in range(1, 4)
        ]
        for n, join in enumerate(joins, start=2):
            assert registry.submit_nowait(code, join), "taken behind the one on its way"
            assert actor.room.seq == n
        assert actor.logged == 4
        await until(lambda: {"k-p1", "k-p2", "k-p3"} <= set(dict(recorder.replies)))
        assert stored_seq(client, code) == 4 and client.llen(key(code, "log")) == 4
        assert client.xlen(key(code, "cmds")) == 0

        outcome: list[object] = []
        snapshot = client.get(key(code, "snap"))
        assert snapshot is not None
        entry = orjson.dumps({"seq": 5})
        bus.commit_soon(
            code, actor.epoch, actor.cursor, snapshot, [entry], [], [], 3, outcome.append
        )
        await until(lambda: outcome, what="the stale chain's end")
        assert outcome[0] is not None, "a commit extending a log of 3 when it holds 4"
        assert client.llen(key(code, "log")) == 4, "stored nothing"


async def test_a_room_with_a_phone_on_another_process_keeps_arrival_at_redis(
    tmp_path: Path,
) -> None:
    """A BANK sent through another process reaches Redis before the owner hears of it: a
    command of the owner's own socket must not jump ahead of it, so while another process
    has a player's socket in the room every command goes through the room's stream."""
    async with owner(tmp_path) as (registry, bus, recorder, client):
        code = (await registry.create(registry.games["bank"], {"rounds": 3}, ["b" * 64]))["code"]
        await bus.subscribe(code)
        actor = registry.actors[code]
        join = command(bus, "system", "p1", None, type="join", name="Ann", player_id="p1")
        await registry.submit(code, join)
        await until(lambda: actor.room.seq == 2 and actor.waiting and bus.idle(code))
        await registry.submit(code, PresenceEnvelope("n-elsewhere", "p1", 1))  # Ann's phone
        await until(lambda: actor.room.nodes() == {"n-elsewhere"} and actor.waiting)
        await until(lambda: bus.idle(code), what="the stream read")

        added = client.xinfo_stream(key(code, "cmds"))["last-generated-id"]
        start = command(bus, "banker", None, "c1", type="start")
        assert not registry.submit_nowait(code, start), "not taken: it goes through the stream"
        await registry.submit(code, start)
        answer = await until(lambda: dict(recorder.replies).get("k-c1"), what="the ack")
        assert orjson.loads(answer) == {"type": "ack", "id": "c1", "seq": 3}
        last = client.xinfo_stream(key(code, "cmds"))["last-generated-id"]
        assert last != added, "it entered the stream"

        await registry.submit(code, PresenceEnvelope("n-elsewhere", "p1", -1))  # Ann left
        await until(lambda: not actor.room.nodes() and actor.waiting and bus.idle(code))
        roll = command(bus, "banker", None, "c2", type="roll", dice=[3, 4])
        assert registry.submit_nowait(code, roll), "alone again: taken at once"
        answer = await until(lambda: dict(recorder.replies).get("k-c2"), what="the roll's ack")
        assert orjson.loads(answer)["seq"] == 4
