"""Real parts: a real uvicorn server process on a free port (and, for the Redis
tests, a real redis-server the fixtures start and may kill)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

ROOT = Path(__file__).resolve().parents[1]

# A bound, not a wait: a loaded 2-core machine on a slow day took over 20 s to start a
# server beside a browser test (2026-12-05); a healthy start answers in ~2 s.
SERVER_START_SECONDS = 60


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class ServerProcess:
    """One `python -m app` process; `stop()` sends SIGTERM, `kill()` SIGKILL."""

    port: int
    process: subprocess.Popen[bytes]
    log_path: Path
    host: str = "127.0.0.1"

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"ws://{self.host}:{self.port}"

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def stop(self, timeout: float = 10) -> int:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        return self.process.wait(timeout)

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(10)


def start_server(
    tmp_path: Path,
    env: dict[str, str] | None = None,
    port: int | None = None,
    command: tuple[str, ...] = ("-m", "app"),
    host: str = "127.0.0.1",
) -> ServerProcess:
    """Start the app as its own process and wait (bounded) until /healthz answers.

    `command`: the Python arguments before `--host` and `--port` (`python -m app`);
    `host`: the loopback address it listens on (127.0.0.2 stands for a venue's Wi-Fi one)."""
    port = port or free_port()
    log_path = tmp_path / f"server-{port}.log"
    inherited = {k: v for k, v in os.environ.items() if k != "REDIS_URL"}
    # Each server keeps its rooms in a data directory of its own, unless the caller
    # names one (a test that restarts a server passes the same one again).
    own_data = {"BANKIT_DATA_DIR": str(tmp_path / f"data-{port}")}
    full_env = {**inherited, "PYTHONUNBUFFERED": "1", **own_data, **(env or {})}
    with log_path.open("wb") as log_file:
        process = subprocess.Popen(
            [sys.executable, *command, "--host", host, "--port", str(port)],
            cwd=ROOT,
            env=full_env,
            stdout=log_file,
            stderr=subprocess.STDOUT,
        )
    server = ServerProcess(port, process, log_path, host)
    deadline = time.monotonic() + SERVER_START_SECONDS
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"server exited early:\n{server.log()}")
        try:
            if httpx.get(f"{server.base_url}/healthz", timeout=1).status_code == 200:
                return server
        except httpx.HTTPError:
            time.sleep(0.05)
    server.kill()
    raise RuntimeError(f"server did not start:\n{server.log()}")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """A pytest-xdist worker runs the slowest test files first (tests/schedule.py); a run
    in one process keeps the files' own order."""
    if hasattr(config, "workerinput"):
        from tests.schedule import order

        order(items)


def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """`--dist loadfile`: a file whole on one worker, and the files that share the
    e2e gallery on the same one (tests/schedule.py)."""
    if config.getvalue("dist") != "loadfile":
        return None
    from tests.schedule import GroupedFileScheduling

    return GroupedFileScheduling(config, log)


@pytest.fixture(autouse=True)
async def close_clients() -> AsyncIterator[None]:
    """Every protocol client a test opened is closed when it ends."""
    yield
    from tests.client import OPEN

    while OPEN:
        await OPEN.pop().close()


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """One shared single-process server (no Redis) for the tests that only play; a
    table may choose a new banker one second after its banker left (hand-over tests)."""
    proc = start_server(tmp_path_factory.mktemp("server"), {"BANKIT_HOST_AWAY_SECONDS": "1"})
    yield proc
    proc.stop()


@pytest.fixture(scope="session")
def redis_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """A real 3-master Redis Cluster (tests/redis_cluster.py), shared by the session:
    every test uses rooms of its own (random codes)."""
    from tests.redis_cluster import RedisCluster  # it imports this module

    cluster = RedisCluster(tmp_path_factory.mktemp("redis-cluster"))
    yield cluster
    cluster.stop()


@pytest.fixture
def fresh_server(tmp_path: Path) -> Iterator[ServerProcess]:
    """A server of this test's own, for tests that change settings or stop it."""
    procs: list[ServerProcess] = []

    def make(**env: str) -> ServerProcess:
        proc = start_server(tmp_path, env)
        procs.append(proc)
        return proc

    yield make  # type: ignore[misc]
    for proc in procs:
        proc.kill()
