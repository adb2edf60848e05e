"""A real Redis failover group on loopback: a primary, two replicas, three sentinels.

All are `redis-server` (the sentinels `redis-server <conf> --sentinel`) on free ports,
with their files in a temp dir; no persistence (a killed server comes back empty, as a
replica of the new primary). The sentinels' timings are low so
that a failover takes about a second (`down-after-milliseconds` 400).
"""

from __future__ import annotations

import shutil
import signal
import subprocess
import time
from pathlib import Path

from tests.conftest import free_port
from tests.redis_server import RedisServer

SERVICE = "bankit"
# What docs/architecture-redis.md asks of operators: a primary cut off from its replicas
# refuses writes (every server may be promoted, so every server has it).
GUARD = ("--min-replicas-to-write", "1", "--min-replicas-max-lag", "5")
QUICK = ("--repl-diskless-sync-delay", "0")  # a returning replica syncs at once
DOWN_AFTER_MS = 2000  # lower, and a loaded machine's pauses look like deaths
FAILOVER_TIMEOUT_MS = 2000


class Sentinel:
    def __init__(self, workdir: Path, primary_port: int) -> None:
        self.port = free_port()
        self.workdir = workdir
        config = workdir / f"sentinel-{self.port}.conf"
        config.write_text(
            f"port {self.port}\nbind 127.0.0.1\nprotected-mode no\ndir {workdir}\n"
            f"sentinel monitor {SERVICE} 127.0.0.1 {primary_port} 2\n"
            f"sentinel down-after-milliseconds {SERVICE} {DOWN_AFTER_MS}\n"
            f"sentinel failover-timeout {SERVICE} {FAILOVER_TIMEOUT_MS}\n"
            f"sentinel parallel-syncs {SERVICE} 2\n"
        )
        binary = shutil.which("redis-server") or "redis-server"
        with (workdir / f"sentinel-{self.port}.log").open("ab") as log:
            self.process = subprocess.Popen(
                [binary, str(config), "--sentinel"], stdout=log, stderr=subprocess.STDOUT
            )

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(10)


class FailoverGroup:
    """The servers by port; `primary()` asks a sentinel which one it is now."""

    def __init__(self, workdir: Path, replicas: int = 2, sentinels: int = 3) -> None:
        self.workdir = workdir
        self.servers: list[RedisServer] = []
        self.sentinels: list[Sentinel] = []
        try:  # what started is stopped if a step fails: no redis-server outlives the test
            first = RedisServer(self._dir("r0"), extra=GUARD + QUICK)
            self.servers.append(first)
            for index in range(1, replicas + 1):
                extra = GUARD + QUICK
                replica = RedisServer(self._dir(f"r{index}"), replica_of=first.port, extra=extra)
                self.servers.append(replica)
            self.wait_replicated(first, replicas)
            for index in range(sentinels):
                self.sentinels.append(Sentinel(self._dir(f"s{index}"), first.port))
            self.wait(lambda: self._sentinels_see(replicas), 20, "sentinels to see every replica")
        except BaseException:
            self.stop()
            raise

    def _dir(self, name: str) -> Path:
        path = self.workdir / name
        path.mkdir(parents=True, exist_ok=True)
        return path

    @property
    def url(self) -> str:
        hosts = ",".join(f"127.0.0.1:{s.port}" for s in self.sentinels)
        return f"redis+sentinel://{hosts}/{SERVICE}"

    @staticmethod
    def wait(check: object, timeout: float, what: str) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if check():  # type: ignore[operator]
                return
            time.sleep(0.05)
        raise AssertionError(f"timed out waiting for {what}")

    def _ask(self, sentinel: Sentinel, *args: str) -> bytes:
        probe = RedisServer.__new__(RedisServer)
        probe.port = sentinel.port
        try:
            return probe.command(*args)
        except OSError:
            return b""

    def _sentinels_see(self, replicas: int) -> bool:
        for sentinel in self.sentinels:
            info = self._ask(sentinel, "SENTINEL", "MASTER", SERVICE)
            if b"num-slaves" not in info:
                return False
            found = info.split(b"num-slaves\r\n", 1)[1].split(b"\r\n")
            if int(found[1]) < replicas or b"num-other-sentinels" not in info:
                return False
            others = info.split(b"num-other-sentinels\r\n", 1)[1].split(b"\r\n")
            if int(others[1]) < len(self.sentinels) - 1:
                return False
        return True

    def primary_port(self) -> int | None:
        """The port the sentinels' majority names as primary (None: no answer)."""
        votes: dict[int, int] = {}
        for sentinel in self.sentinels:
            reply = self._ask(sentinel, "SENTINEL", "GET-MASTER-ADDR-BY-NAME", SERVICE)
            parts = reply.split(b"\r\n")
            if len(parts) >= 5:
                port = int(parts[4])
                votes[port] = votes.get(port, 0) + 1
        best = max(votes.items(), key=lambda item: item[1], default=None)
        return best[0] if best and best[1] >= 2 else None

    def server(self, port: int) -> RedisServer:
        return next(s for s in self.servers if s.port == port)

    def role(self, server: RedisServer) -> bytes:
        try:
            return server.command("ROLE").split(b"\r\n")[2]
        except (OSError, IndexError):
            return b""

    def wait_replicated(self, primary: RedisServer, replicas: int, timeout: float = 20) -> None:
        def linked() -> bool:
            try:
                info = primary.command("INFO", "replication")
            except OSError:
                return False
            return info.count(b"state=online") >= replicas

        self.wait(linked, timeout, f"{replicas} replicas online")

    def kill_primary(self, timeout: float = 20) -> tuple[int, int, float]:
        """SIGKILL the primary; wait for a replica's promotion; bring the killed server
        back (empty) as a replica of the new primary. The old and the new port, and
        when (time.monotonic) the kill landed."""
        old = self.primary_port()
        assert old is not None
        self.server(old).kill()
        killed = time.monotonic()
        promoted: list[int] = []

        def moved() -> bool:
            port = self.primary_port()
            if port is None or port == old or self.role(self.server(port)) != b"master":
                return False
            promoted.append(port)
            return True

        self.wait(moved, timeout, "a replica's promotion")
        new = promoted[-1]
        # Back empty, as a replica of the new primary (as an operator's restart would:
        # the sentinels alone take ~10 s to turn a returning primary into a replica).
        self.server(old).replica_of = new
        (self.server(old).workdir / "dump.rdb").unlink(missing_ok=True)  # a full sync's copy
        self.server(old).start()
        self.wait_replicated(self.server(new), len(self.servers) - 1, timeout)
        return old, new, killed

    def stop(self) -> None:
        for sentinel in self.sentinels:
            sentinel.stop()
        for server in self.servers:
            server.stop()
