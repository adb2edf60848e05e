"""What waiting for a replica costs one command: submit, read and commit, one at a time.

    python -m bench.replica_wait [--commands 2000] [--repeats 3]

A redis-server and one replica of it (loopback, a temp dir); one `RedisBus` plays the
owner of one room and sends `--commands` commands through the whole path (submit, the
owner's read, the commit with a 3 KB record), alternately with `min_replicas` 0 (answered
at once) and 1 (`WAIT 1` after each commit). Prints wall and CPU time per command.
"""

from __future__ import annotations

import argparse
import asyncio
import secrets
import statistics
import tempfile
import time
from pathlib import Path

from app.bus.redis.bus import RedisBus
from tests.redis_server import RedisServer


async def per_command(url: str, commands: int, replicas: int) -> tuple[float, float]:
    bus = RedisBus(url, lease_seconds=3, min_replicas=replicas)
    await bus.start(lambda code, frame: None, lambda key, payload: None)
    code = secrets.token_hex(3).upper()
    await bus.create_room(code, b"s", b"e")
    epoch = await bus.claim(code)
    assert epoch is not None
    await bus.load_snapshot(code)
    cursor = await bus.load_cursor(code)
    record = b"x" * 3000
    wall, cpu = time.perf_counter(), time.process_time()
    for _ in range(commands):
        await bus.submit(code, b"command")
        cursor = (await bus.read_commands(code, cursor, 100))[-1][0]
        assert await bus.commit(code, epoch, cursor, record, [b"entry"], [], [])
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    await bus.close()
    return wall / commands * 1e6, cpu / commands * 1e6


def main(commands: int, repeats: int) -> None:
    workdir = Path(tempfile.mkdtemp(prefix="bankit-replica-wait-"))
    (workdir / "p").mkdir()
    (workdir / "r").mkdir()
    primary = RedisServer(workdir / "p", extra=("--repl-diskless-sync-delay", "0"))
    replica = RedisServer(workdir / "r", replica_of=primary.port)
    try:
        deadline = time.monotonic() + 20
        while primary.command("INFO", "replication").count(b"state=online") < 1:
            assert time.monotonic() < deadline, "the replica never came online"
            time.sleep(0.05)
        found: dict[int, list[tuple[float, float]]] = {0: [], 1: []}
        for _ in range(repeats):
            for replicas in (0, 1):
                found[replicas].append(asyncio.run(per_command(primary.url, commands, replicas)))
        print("| min_replicas | wall µs per command (median) | app CPU µs per command (median) |")
        print("|---|---|---|")
        for replicas, runs in found.items():
            wall = statistics.median(w for w, _ in runs)
            cpu = statistics.median(c for _, c in runs)
            print(f"| {replicas} | {wall:.0f} | {cpu:.0f} |")
    finally:
        replica.stop()
        primary.stop()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--commands", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=3)
    options = parser.parse_args()
    main(options.commands, options.repeats)
