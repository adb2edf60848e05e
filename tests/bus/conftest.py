"""One contract, every backend: the bus fixtures start a real redis-server of their own."""

from __future__ import annotations

import asyncio
import inspect
import secrets
import time
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from app.bus.base import Frame
from app.bus.memory import MemoryBus
from app.bus.redis.bus import RedisBus
from app.bus.sqlite.bus import SqliteBus
from tests.redis_cluster import RedisCluster
from tests.redis_server import RedisServer


class Recorder:
    """What a process's hub would receive: frames per room and replies per key."""

    def __init__(self) -> None:
        self.frames: list[tuple[str, Frame]] = []
        self.replies: list[tuple[str, bytes]] = []

    def on_frame(self, code: str, frame: Frame) -> None:
        self.frames.append((code, frame))

    def on_reply(self, key: str, payload: bytes) -> None:
        self.replies.append((key, payload))

    def of(self, code: str) -> list[Frame]:
        return [frame for room, frame in self.frames if room == code]


async def until(predicate: Callable[[], Any], timeout: float = 5.0, what: str = "") -> Any:
    """Poll until `predicate()` (awaited if need be) is truthy; fail after `timeout` s."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if inspect.isawaitable(value):
            value = await value
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what or predicate}")
        await asyncio.sleep(0.01)


_issued: set[str] = set()


def new_code() -> str:
    """A room code no other test in this process has had: a repeat would be taken already."""
    while (code := "T" + secrets.token_hex(3).upper()) in _issued:
        pass
    _issued.add(code)
    return code


@pytest.fixture(scope="module")
def redis_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisServer]:
    server = RedisServer(tmp_path_factory.mktemp("redis"))
    yield server
    server.stop()


@pytest.fixture(params=["memory", "sqlite", "sqlite-full", "redis", "redis-cluster"])
async def bus(request: pytest.FixtureRequest) -> AsyncIterator[tuple[Any, Recorder]]:
    """A started bus of each kind, with a recorder for what it delivers."""
    recorder = Recorder()
    if request.param == "memory":
        made: Any = MemoryBus()
    elif request.param.startswith("sqlite"):  # FULL: the writer thread, group commit
        tmp_path: Path = request.getfixturevalue("tmp_path")
        full = request.param == "sqlite-full"
        made = SqliteBus(tmp_path / "bankit.sqlite3", "FULL" if full else "NORMAL")
    elif request.param == "redis-cluster":
        cluster: RedisCluster = request.getfixturevalue("redis_cluster")
        made = RedisBus(cluster.url, lease_seconds=0.5)
    else:
        server: RedisServer = request.getfixturevalue("redis_server")
        made = RedisBus(server.url, lease_seconds=0.5)
    await made.start(recorder.on_frame, recorder.on_reply)
    yield made, recorder
    await made.close()


@pytest.fixture
async def redis_pair(redis_server: RedisServer) -> AsyncIterator[list[tuple[RedisBus, Recorder]]]:
    """Two RedisBus instances on one Redis: two processes of one deployment."""
    pair = []
    for _ in range(2):
        recorder = Recorder()
        made = RedisBus(redis_server.url, lease_seconds=0.5)
        await made.start(recorder.on_frame, recorder.on_reply)
        pair.append((made, recorder))
    yield pair
    for made, _ in pair:
        await made.close()


@pytest.fixture
def own_redis(tmp_path: Path) -> Iterator[RedisServer]:
    """A redis-server this test alone uses (and kills), with AOF."""
    server = RedisServer(tmp_path, aof=True)
    yield server
    server.stop()
