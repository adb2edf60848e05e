"""A real local Redis Cluster of the tests' own: three masters on free loopback ports.

Each `redis-server --cluster-enabled yes` keeps its cluster config in the tmp dir; then
`redis-cli --cluster create` splits the 16,384 slots between them, and the cluster is
ready when every node says `cluster_state:ok`. Stopped by pid, never by name.
"""

from __future__ import annotations

import shutil
import subprocess
import time
from pathlib import Path

import pytest

from tests.redis_server import RedisServer


class RedisCluster:
    def __init__(self, workdir: Path, masters: int = 3) -> None:
        self.nodes: list[RedisServer] = []
        cli = shutil.which("redis-cli")
        if cli is None:
            pytest.fail("redis-cli is not installed: run `make system-deps`")
        try:
            for n in range(masters):
                node_dir = workdir / f"node-{n}"
                node_dir.mkdir(parents=True, exist_ok=True)
                self.nodes.append(RedisServer(node_dir, cluster=True))
            addresses = [f"127.0.0.1:{node.port}" for node in self.nodes]
            subprocess.run(
                [cli, "--cluster", "create", *addresses, "--cluster-replicas", "0"]
                + ["--cluster-yes"],
                check=True,
                capture_output=True,
                timeout=30,
            )
            self._wait_ok()
        except BaseException:
            self.stop()
            raise

    @property
    def url(self) -> str:
        return "redis+cluster://" + ",".join(f"127.0.0.1:{node.port}" for node in self.nodes)

    def _wait_ok(self, timeout: float = 20) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            infos = [node.command("CLUSTER", "INFO") for node in self.nodes]
            if all(b"cluster_state:ok" in info for info in infos):
                return
            time.sleep(0.05)
        raise RuntimeError("the cluster did not reach cluster_state:ok")

    def node_of(self, key: str) -> int:
        """Index of the master that holds `key`'s slot (asked of the cluster itself)."""
        for index, node in enumerate(self.nodes):
            if not node.command("EXISTS", key).startswith(b"-MOVED"):
                return index
        raise LookupError(key)

    def stop(self) -> None:
        for node in self.nodes:
            node.stop()
