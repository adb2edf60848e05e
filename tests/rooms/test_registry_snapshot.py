"""What `RoomRegistry.snapshot` answers in one process, whose store keeps no views."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import time
import weakref
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import orjson

from app.bus.base import Bus, Frame
from app.bus.sqlite.bus import SqliteBus, file_of
from app.config import Settings
from app.games.registry import GameRegistry
from app.rooms.envelope import CommandEnvelope
from app.rooms.registry import RoomRegistry


def ignore_frame(code: str, frame: Frame) -> None:
    """No sockets here."""


def ignore_reply(key: str, payload: bytes) -> None:
    """No senders here."""


@contextlib.asynccontextmanager
async def running(bus: Bus, settings: Settings) -> AsyncIterator[RoomRegistry]:
    """A registry over `bus`, started and closed as `python -m app` does."""
    await bus.start(ignore_frame, ignore_reply)
    registry = RoomRegistry(bus, settings, GameRegistry.load(settings))
    await registry.start()
    try:
        yield registry
    finally:
        await registry.close()
        await bus.close()


@contextlib.asynccontextmanager
async def one_process(tmp_path: Path, **options: Any) -> AsyncIterator[RoomRegistry]:
    """A registry over a real SQLite file, as `python -m app` runs it."""
    settings = Settings(data_dir=tmp_path, **options)
    async with running(SqliteBus(file_of(tmp_path)), settings) as registry:
        yield registry


async def test_live_rooms_answer_from_memory_and_stored_ones_from_their_log(
    tmp_path: Path,
) -> None:
    async with one_process(tmp_path) as registry:
        bus, games = registry.bus, registry.games
        created = await registry.create(games["bank"], {"rounds": 3}, ["b" * 64])
        code = created["code"]
        join = orjson.dumps({"type": "join", "player_id": "p1", "name": "Ann"}).decode()
        envelope = CommandEnvelope("system", None, None, join, bus.node_id, "", server=True)
        assert registry.submit_nowait(code, envelope)
        actor = registry.actors[code]
        deadline = time.monotonic() + 5
        while orjson.loads(await actor.snapshot())["seq"] < 2:  # applied and committed
            assert time.monotonic() < deadline, "the join was never applied"
            await asyncio.sleep(0.01)
        live = await registry.snapshot(code)
        assert live is not None and live == orjson.loads(await actor.snapshot())
        assert [p["name"] for p in live["state"]["players"]] == ["Ann"]

        stored = orjson.loads(await bus.load_snapshot(code) or b"{}")
        assert "state" not in stored and stored["seq"] == 1, "the join went to the log only"

        await actor.stop()  # a stored room without an actor: restored from its snapshot and log
        assert code not in registry.actors
        stored = orjson.loads(await bus.load_snapshot(code) or b"{}")
        assert "state" not in stored and stored["seq"] == 2, "a room that stops is saved"
        rebuilt = await registry.snapshot(code)
        assert rebuilt is not None and rebuilt["state"] == live["state"]
        assert await registry.snapshot("NONE") is None


async def test_idle_rooms_leave_memory_come_back_when_asked_and_are_freed_on_disk(
    tmp_path: Path,
) -> None:
    async with one_process(tmp_path, room_evict_seconds=0.05) as registry:
        bus, games, settings = registry.bus, registry.games, registry.settings
        created = await registry.create(games["bank"], {"rounds": 3}, ["b" * 64])
        code = created["code"]
        await asyncio.sleep(0.1)  # idle for longer than room_evict_seconds
        assert await registry.reap() == [] and code not in registry.actors, "evicted, not freed"
        assert await bus.load_snapshot(code) is not None, "it waits on disk"

        back = await registry.snapshot(code)  # a phone opens it: it is restored from disk
        assert back is not None and back["state"] == created and code in registry.actors

        await asyncio.sleep(0.1)
        await registry.reap()
        assert code not in registry.actors
        join = orjson.dumps({"type": "join", "player_id": "p1", "name": "Ann"}).decode()
        envelope = CommandEnvelope("system", None, None, join, bus.node_id, "", server=True)
        await registry.submit(code, envelope)  # a command brings it back too, and is applied
        deadline = time.monotonic() + 5
        while registry.actors[code].room.seq < 2:
            assert time.monotonic() < deadline, "the join was never applied"
            await asyncio.sleep(0.01)

        await asyncio.sleep(0.1)
        await registry.reap()
        assert code not in registry.actors
        registry.settings = settings.model_copy(update={"room_idle_seconds": 0.05})
        assert await registry.reap() == [code], "its time is up: freed from disk too"
        assert await bus.load_snapshot(code) is None
        assert await registry.snapshot(code) is None


async def test_a_room_that_leaves_memory_is_freed_at_once_not_by_the_gc(tmp_path: Path) -> None:
    """No reference cycle keeps a stopped room: thousands leave memory in a game night,
    and cyclic garbage waits for full collections, which stall the loop."""
    async with one_process(tmp_path) as registry:
        games = registry.games
        gc.disable()
        try:
            code = (await registry.create(games["bank"], {"rounds": 3}, ["b" * 64]))["code"]
            await asyncio.sleep(0)  # the actor waits for commands
            room = weakref.ref(registry.actors[code].room)
            await registry.actors[code].stop()
            assert code not in registry.actors
            assert room() is None, "freed by reference counting"
        finally:
            gc.enable()


async def test_rooms_left_on_disk_at_start_are_freed_by_the_sweep(tmp_path: Path) -> None:
    """Beyond `max_rooms` a restart leaves rooms on disk; the reaper knows them anyway."""
    async with one_process(tmp_path) as registry:
        games = registry.games
        codes = {(await registry.create(games["bank"], {}, ["b" * 64]))["code"] for _ in range(3)}
    async with one_process(tmp_path, max_rooms=1, room_idle_seconds=0.05) as again:
        assert len(again.actors) == 1, "one room in memory, two left on disk"
        await asyncio.sleep(0.1)  # idle for longer than room_idle_seconds
        assert set(await again.reap()) == codes
        for code in codes:
            assert await again.bus.load_snapshot(code) is None
