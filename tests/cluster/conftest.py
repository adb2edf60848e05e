"""Several real `python -m app` processes sharing rooms through a real redis-server
(or, with `backend="redis-cluster"`, the session's real 3-master Redis Cluster)."""

from __future__ import annotations

import hashlib
import json
import signal
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.conftest import ServerProcess, start_server
from tests.redis_cluster import RedisCluster
from tests.redis_server import RedisServer

# A lease of 3 s: long enough that the other test worker's browser, or an AOF fsync
# that holds Redis up, does not move a room that a test expects to stay put (1.5 s
# did once in CI); short enough that a takeover after a kill stays quick.
ENV = {
    "BANKIT_LEASE_SECONDS": "3",
    "BANKIT_WATCH_SECONDS": "0.25",
    "BANKIT_NODE_TTL_SECONDS": "2",
}


@dataclass
class Cluster:
    redis: RedisServer | RedisCluster
    servers: list[ServerProcess] = field(default_factory=list)

    def owners(self, timeout: float = 0.5) -> list[int]:
        """Indexes of the processes that own at least one room (by their /metrics; a
        stopped process, which cannot answer, owns nothing it could use)."""
        owning = []
        for index, server in enumerate(self.servers):
            if server.process.poll() is not None:
                continue
            try:
                text = httpx.get(f"{server.base_url}/metrics", timeout=timeout).text
            except httpx.HTTPError:
                continue
            if metric(text, "bankit_rooms_owned") > 0:
                owning.append(index)
        return owning

    def stop(self, index: int) -> None:
        self.servers[index].process.send_signal(signal.SIGSTOP)

    def resume(self, index: int) -> None:
        self.servers[index].process.send_signal(signal.SIGCONT)


def metric(text: str, name: str) -> float:
    for line in text.splitlines():
        if line.startswith(name + " ") or line.startswith(name + "{"):
            return float(line.rsplit(" ", 1)[1])
    raise KeyError(name)


def poll(check: Callable[[], Any], timeout: float, what: str) -> Any:
    """Call `check` until it returns something truthy (bounded), for sync tests."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            value = check()
        except httpx.HTTPError:
            value = None
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(0.05)


def verify_chain(events: list[dict[str, Any]]) -> None:
    """The log is whole: seqs 1..n with no gap or repeat, and the hash chain holds."""
    assert [event["seq"] for event in events] == list(range(1, len(events) + 1))
    prev = "0" * 64
    for event in events:
        body = {k: v for k, v in event.items() if k != "hash"}
        canonical = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        assert event["hash"] == hashlib.sha256((prev + canonical).encode()).hexdigest()
        prev = event["hash"]


@pytest.fixture
def make_cluster(
    tmp_path: Path, request: pytest.FixtureRequest
) -> Iterator[Callable[..., Cluster]]:
    """Start a redis-server (AOF if asked) and `n` app processes on it, in parallel;
    `backend="redis-cluster"`: the processes share the session's Redis Cluster."""
    made: list[Cluster] = []

    def make(n: int = 3, aof: bool = False, backend: str = "redis", **env: str) -> Cluster:
        redis: RedisServer | RedisCluster
        if backend == "redis-cluster":
            redis = request.getfixturevalue("redis_cluster")
        else:
            redis = RedisServer(tmp_path, aof=aof)
        cluster = Cluster(redis)
        made.append(cluster)
        full = {**ENV, "REDIS_URL": redis.url, **env}
        with ThreadPoolExecutor(n) as pool:
            starts = [pool.submit(start_server, tmp_path, full) for _ in range(n)]
        # Those that started are stopped at the end even when another did not start.
        cluster.servers = [start.result() for start in starts if start.exception() is None]
        for start in starts:
            if (failed := start.exception()) is not None:
                raise failed
        return cluster

    yield make
    for cluster in made:
        for server in cluster.servers:
            if server.process.poll() is None:
                server.process.send_signal(signal.SIGCONT)
                server.kill()
        if isinstance(cluster.redis, RedisServer):
            cluster.redis.stop()  # the session's Redis Cluster outlives the test
