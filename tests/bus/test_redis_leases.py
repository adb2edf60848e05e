"""The owner's leases on Redis (`RedisBus.keep_lease`): one keeper renews every room this
process owns, together, once a third of a lease; an idle room's actor is not woken for
it; an owner whose lease went elsewhere steps down at the next round, without a command;
an owner that stops is no longer renewed, so its lease lapses."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import redis

from app.bus.redis.bus import RedisBus, key
from app.bus.redis.mux import Multiplexer
from app.bus.redis.wire import RENEW
from app.config import Settings
from app.games.registry import GameRegistry
from app.rooms.registry import RoomRegistry
from tests.bus.conftest import Recorder, until
from tests.redis_server import RedisServer

LEASE = 0.6  # seconds: a round every 0.2 s


@contextlib.asynccontextmanager
async def owner(tmp_path: Path) -> AsyncIterator[tuple[RoomRegistry, RedisBus, redis.Redis]]:
    server = RedisServer(tmp_path)
    settings = Settings(data_dir=tmp_path, lease_seconds=LEASE)
    bus = RedisBus(server.url, lease_seconds=LEASE)
    registry = RoomRegistry(bus, settings, GameRegistry.load(settings))
    client = redis.Redis(port=server.port)
    try:
        await bus.start(Recorder().on_frame, Recorder().on_reply)
        await registry.start()
        yield registry, bus, client
    finally:
        await registry.close()
        await bus.close()
        client.close()
        server.stop()


async def test_idle_owners_keep_their_leases_in_one_write_a_round(tmp_path: Path) -> None:
    async with owner(tmp_path) as (registry, bus, client):
        codes = [
            (await registry.create(registry.games["bank"], {"rounds": 3}, ["b" * 64]))["code"]
            for _ in range(6)
        ]
        leases = {code: client.get(key(code, "lease")) for code in codes}
        mux = bus._mux
        assert isinstance(mux, Multiplexer)
        rounds: list[int] = []
        scripts = mux.scripts

        async def counted(body: str, calls: list[tuple[list[Any], list[Any]]]) -> list[Any]:
            if body == RENEW:
                rounds.append(len(calls))
            return await scripts(body, calls)

        mux.scripts = counted  # type: ignore[method-assign]
        await asyncio.sleep(4 * LEASE)  # a window to watch, not a wait for something
        mux.scripts = scripts  # type: ignore[method-assign]

        assert all(client.get(key(code, "lease")) == leases[code] for code in codes), (
            "every room is still this owner's, with the same lease"
        )
        assert all(code in registry.actors for code in codes)
        assert rounds and max(rounds) == len(codes), f"one write a round for all: {rounds}"
        assert 4 * 3 - 2 <= len(rounds) <= 4 * 3 + 1, f"a round a third of a lease: {rounds}"


async def test_an_owner_whose_lease_went_elsewhere_steps_down_without_a_command(
    tmp_path: Path,
) -> None:
    async with owner(tmp_path) as (registry, bus, client):
        taken = (await registry.create(registry.games["bank"], {"rounds": 3}, ["b" * 64]))["code"]
        kept = (await registry.create(registry.games["bank"], {"rounds": 3}, ["b" * 64]))["code"]
        client.set(key(taken, "lease"), "99 n-another", px=60_000)  # taken over meanwhile
        started = time.monotonic()
        await until(lambda: taken not in registry.actors, what="the stale owner stepping down")
        assert time.monotonic() - started < 2 * LEASE, "at the next round, not at a re-read"
        assert client.get(key(taken, "lease")) == b"99 n-another", "the new owner's lease"
        assert kept in registry.actors, "the other room is kept"


async def test_a_stopped_owner_is_no_longer_renewed(tmp_path: Path) -> None:
    async with owner(tmp_path) as (registry, bus, client):
        code = (await registry.create(registry.games["bank"], {"rounds": 3}, ["b" * 64]))["code"]
        await registry.actors[code].stop(release=False)  # as a process that stalls or dies
        await until(
            lambda: client.get(key(code, "lease")) is None, what="the lease to lapse", timeout=5
        )
