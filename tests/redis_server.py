"""A real redis-server of the tests' own, on a free port, that a test may kill and restart.

It never touches another Redis on the machine: the port comes from `free_port()`,
and the data (with AOF, when a test needs persistence) lives in the test's tmp dir.
"""

from __future__ import annotations

import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

import pytest

from tests.conftest import free_port


class RedisServer:
    def __init__(
        self,
        workdir: Path,
        aof: bool = False,
        cluster: bool = False,
        replica_of: int | None = None,
        extra: tuple[str, ...] = (),
    ) -> None:
        self.port = free_port()
        self.replica_of = replica_of  # a replica of tests/redis_sentinel.py's primary
        self.extra = extra
        self.workdir = workdir
        self.aof = aof
        self.cluster = cluster  # a master of tests/redis_cluster.py
        self.bus_port = free_port() if cluster else 0
        self.process: subprocess.Popen[bytes] | None = None
        self.start()

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self, timeout: float = 10) -> None:
        binary = shutil.which("redis-server")
        if binary is None:
            pytest.fail(
                "redis-server is not installed: run `make system-deps`"
                " (apt-get install redis-server)"
            )
        args = [binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", ""]
        args += ["--dir", str(self.workdir), "--daemonize", "no", "--protected-mode", "no"]
        args += (
            ["--appendonly", "yes", "--appendfsync", "always"]
            if self.aof
            else ["--appendonly", "no"]
        )
        if self.cluster:
            config = str(self.workdir / f"nodes-{self.port}.conf")
            args += ["--cluster-enabled", "yes", "--cluster-config-file", config]
            args += ["--cluster-port", str(self.bus_port)]  # not port + 10,000: it may be taken
        if self.replica_of is not None:
            args += ["--replicaof", "127.0.0.1", str(self.replica_of)]
        args += list(self.extra)
        with (self.workdir / "redis.log").open("ab") as log:
            self.process = subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError((self.workdir / "redis.log").read_text(errors="replace"))
            if self.ping():
                return
            time.sleep(0.02)
        raise RuntimeError("redis-server did not answer")

    def ping(self) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=0.5) as sock:
                sock.sendall(b"PING\r\n")
                return sock.recv(64).startswith(b"+PONG")
        except OSError:
            return False

    def command(self, *args: str) -> bytes:
        """One raw command (inline protocol is enough for the tests' needs)."""
        with socket.create_connection(("127.0.0.1", self.port), timeout=2) as sock:
            parts = [f"*{len(args)}\r\n".encode()]
            for arg in args:
                data = arg.encode()
                parts.append(b"$%d\r\n%s\r\n" % (len(data), data))
            sock.sendall(b"".join(parts))
            return sock.recv(65536)

    def kill(self) -> None:
        """SIGKILL: what is not in the AOF is gone."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(10)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.kill()

    def restart(self) -> None:
        self.kill()
        self.start()
