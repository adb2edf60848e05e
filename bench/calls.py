"""Python function calls per action, and where the profiled time goes (cProfile).

    python -m bench.calls [--rooms 250] [--seconds 8] [--game random|scripted] [--top 25]
                          [--sort tottime|ncalls|cumtime] [--keep FILE]

A bankit server (one process, SQLite; with REDIS_URL set in the environment, that Redis)
runs under `bench/profiled_app.py`, which turns cProfile on at SIGUSR1 and writes its
stats at SIGUSR2; bench/load.py's rooms play (11 sockets, 2 actions a second a room,
states as patches) and the window between the two signals is profiled. Prints the
actions, the server's CPU per action (profiled: the profiler roughly doubles it), Python
calls per action and the top functions by their own time (`--sort`: by calls, or by time
with what they call; `--keep`: the stats file).
Counts calls, not microseconds: compare before and after on one machine.
"""

from __future__ import annotations

import argparse
import os
import pstats
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench import load
from bench.cluster import ROOT, SOCKETS_PER_WORKER, cpu_seconds, free_port, pinned, wait_http
from bench.compare import GAMES


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.calls", description=__doc__)
    parser.add_argument("--rooms", type=int, default=250)
    parser.add_argument("--seconds", type=float, default=8)
    parser.add_argument("--game", choices=sorted(GAMES), default="random")
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--sort", choices=("tottime", "ncalls", "cumtime"), default="tottime")
    parser.add_argument("--keep", type=Path, default=None, help="copy the cProfile stats here")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="bankit-calls-"))
    stats_file = work / "server.prof"
    port = free_port()
    env = {
        **os.environ,
        "BANKIT_LOG_LEVEL": "warning",
        "BANKIT_MAX_CONNECTIONS": "100000",
        "BANKIT_MAX_OPEN_CONNECTIONS": "100000",
        "BANKIT_MAX_ROOMS": "100000",
        "BANKIT_STORE": "sqlite",
        "BANKIT_DATA_DIR": str(work / "data"),
        "BANKIT_PROFILE_TO": str(stats_file),
    }
    command = [sys.executable, "-m", "bench.profiled_app", "--host", "127.0.0.1"]
    server = subprocess.Popen(pinned([*command, "--port", str(port)], 0), cwd=ROOT, env=env)
    try:
        wait_http(f"http://127.0.0.1:{port}/readyz")
        plan, rounds, _ = GAMES[args.game]
        options = (plan, True, rounds, True, 0)
        pipes, procs = load.start_workers(
            [port], args.rooms, SOCKETS_PER_WORKER, 3, args.seconds, *options
        )
        time.sleep(3)
        cpu0 = cpu_seconds(server.pid)
        server.send_signal(signal.SIGUSR1)
        time.sleep(args.seconds)
        server.send_signal(signal.SIGUSR2)
        cpu1 = cpu_seconds(server.pid)
        actions = sum(pipe.recv()["actions"] for pipe in pipes)
        for proc in procs:
            proc.join(30)
        deadline = time.monotonic() + 30
        while not stats_file.exists() and time.monotonic() < deadline:
            time.sleep(0.1)
    finally:
        server.kill()
        server.wait(10)
    stats = pstats.Stats(str(stats_file))
    calls = sum(entry[1] for entry in stats.stats.values())  # type: ignore[attr-defined]
    done = max(actions, 1)
    print(f"{args.rooms} rooms, {args.game} game: {actions} actions in {args.seconds:.0f} s")
    print(f"server CPU per action (profiled) {(cpu1 - cpu0) / done * 1e6:.0f} µs")
    print(f"Python function calls per action {calls / done:.0f}")
    stats.sort_stats(args.sort).print_stats(args.top)
    if args.keep is not None:
        shutil.copy(stats_file, args.keep)
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
