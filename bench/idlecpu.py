"""What a server costs while its rooms are seated and nobody plays: CPU a second.

    python -m bench.idlecpu [--systems naive,sqlite,redis] [--rooms 50] [--seconds 20]
                            [--runs 3]

Each system as bench/compare.py starts it (pinned to CPU 0, fresh data, `redis` with a
redis-server of its own, `sqlite@REV` for the code at a git revision); bench/load.py
seats `--rooms` rooms of 11 sockets (states as patches for bankit) and then sends
nothing. After 3 s, the server's (and its redis-server's) CPU time over `--seconds`,
per second of wall time: what timers, leases, keepalive pings and the loop's own
wake-ups cost when nothing happens. At 2 actions a second a room, 1 ms of CPU a
second is 10 µs an action at 50 rooms. Medians of `--runs`; /proc counts CPU in
10 ms ticks, so a 20 s window reads to 0.5 ms a second.
"""

from __future__ import annotations

import argparse
import statistics
import time

from bench import load
from bench.compare import GAMES, SOCKETS_PER_WORKER, Server

SETTLE = 3.0  # seconds after the rooms are seated before the window opens


def measure(system: str, rooms: int, seconds: float) -> tuple[float, float]:
    """(server, redis-server) ms of CPU a second with `rooms` idle rooms."""
    server = Server.start(system)
    procs = []
    try:
        bankit = system != "naive"
        options = (GAMES["random"][0], bankit, 100, bankit, 0)
        _, procs = load.start_workers(
            [server.port], rooms, SOCKETS_PER_WORKER, 0, SETTLE + seconds + 30, *options
        )
        time.sleep(SETTLE)
        app0, redis0 = server.cpu()
        time.sleep(seconds)
        app1, redis1 = server.cpu()
        return (app1 - app0) / seconds * 1000, (redis1 - redis0) / seconds * 1000
    finally:
        for proc in procs:
            proc.kill()
        server.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--systems", default="naive,sqlite,redis")
    parser.add_argument("--rooms", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    # Nobody plays: a room's next action is due long after the window (bench/load.py's
    # workers are forked, so they keep this period).
    load.PERIOD = 3600.0
    systems = args.systems.split(",")
    found: dict[str, list[tuple[float, float]]] = {system: [] for system in systems}
    print(
        f"bench.idlecpu {time.strftime('%Y-%m-%d %H:%M')}: {args.rooms} idle rooms, "
        f"{args.seconds:g} s windows, {args.runs} run(s)"
    )
    for run in range(args.runs):
        for system in systems:  # in turns, so that a slow minute hits every system
            found[system].append(measure(system, args.rooms, args.seconds))
            app, redis = found[system][-1]
            print(f"  run {run + 1} {system:>16}: {app:6.2f} ms/s  redis-server {redis:5.2f}")
    print(f"{'system':>16} {'ms CPU/s':>9} {'+redis':>7}  (medians)")
    for system, rows in found.items():
        app = statistics.median(row[0] for row in rows)
        redis = statistics.median(row[1] for row in rows)
        print(f"{system:>16} {app:9.2f} {redis:7.2f}")


if __name__ == "__main__":
    main()
