"""Where an idle WebSocket's memory goes in bankit: tracemalloc, by allocation site.

    python -m bench.idlemem [--sockets 500] [--top 25]

Starts `python -m app` (default config: SQLite store) under tracemalloc, opens one spectator socket
(so lazy imports and first-use caches are paid), snapshots, opens `--sockets` more
idle spectators in the same room, snapshots again, and prints the difference per
socket, by the line that allocated it (and the RSS growth per socket beside it).
The server dumps its snapshots on SIGUSR1: a hook installed before app.__main__ runs.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import signal
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

import httpx

from bench.cluster import ROOT, _idle_sockets, free_port, rss_kib, wait_http

HOOK = """
import signal, sys, tracemalloc
tracemalloc.start(12)
count, base = [0], sys.argv[-1]
def dump(signum, frame):
    count[0] += 1
    tracemalloc.take_snapshot().dump(f"{base}.{count[0]}")
signal.signal(signal.SIGUSR1, dump)
sys.argv = ["app", "--host", "127.0.0.1", "--port", sys.argv[1]]
from app.__main__ import main
main()
"""


def snapshot(server: subprocess.Popen[bytes], base: str, n: int) -> tracemalloc.Snapshot:
    server.send_signal(signal.SIGUSR1)
    path = Path(f"{base}.{n}")
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if path.exists():
            size = path.stat().st_size
            time.sleep(0.5)
            if size and path.stat().st_size == size:
                return tracemalloc.Snapshot.load(str(path))
        time.sleep(0.1)
    raise RuntimeError("no snapshot")


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.idlemem", description=__doc__)
    parser.add_argument("--sockets", type=int, default=500)
    parser.add_argument("--top", type=int, default=25)
    args = parser.parse_args()
    port, folder = free_port(), tempfile.mkdtemp(prefix="bankit-idlemem-")
    base = str(Path(folder) / "snap")
    env = {**os.environ, "BANKIT_LOG_LEVEL": "warning", "BANKIT_STORE": "sqlite"}
    env["BANKIT_DATA_DIR"] = str(Path(folder) / "data")
    env.pop("REDIS_URL", None)
    server = subprocess.Popen([sys.executable, "-c", HOOK, str(port), base], cwd=ROOT, env=env)
    context = multiprocessing.get_context("fork")
    try:
        wait_http(f"http://127.0.0.1:{port}/readyz", 60)
        url = f"http://127.0.0.1:{port}"
        code = httpx.post(f"{url}/api/rooms", json={"game": "bank"}).json()["code"]
        pipes, procs = [], []
        for count in (1, args.sockets):
            mine, theirs = context.Pipe()
            proc = context.Process(target=_idle_sockets, args=(theirs, port, code, count))
            proc.daemon = True
            proc.start()
            mine.recv()
            time.sleep(1)
            pipes.append(mine)
            procs.append(proc)
            if count == 1:
                before, rss_before = snapshot(server, base, 1), rss_kib(server.pid)
        after, rss_after = snapshot(server, base, 2), rss_kib(server.pid)
        stats = after.compare_to(before, "lineno")
        total = sum(s.size_diff for s in stats)
        n = args.sockets
        print(
            f"{n} idle sockets: traced {total / n:.0f} B per socket, "
            f"RSS {(rss_after - rss_before) * 1024 / n:.0f} B per socket "
            "(RSS includes tracemalloc's own bookkeeping)"
        )
        print(f"{'B/socket':>9} {'objs/socket':>11}  allocated at")
        for stat in stats[: args.top]:
            frame = stat.traceback[0]
            where = f"{frame.filename.split('site-packages/')[-1]}:{frame.lineno}"
            print(f"{stat.size_diff / n:>9.0f} {stat.count_diff / n:>11.1f}  {where}")
        for pipe in pipes:
            pipe.send("bye")
        for proc in procs:
            proc.join(30)
    finally:
        server.kill()
        server.wait(10)


if __name__ == "__main__":
    main()
