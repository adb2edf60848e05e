"""What keeping rooms on disk costs: commits of BANK-sized snapshots through each store.

    python -m bench.store [--events 3000] [--rooms 100] [--only journal]

Each event is what a room actor commits for one BANK command: a ~2 KB snapshot, one
log entry, the cursor, one state frame; `journal` rows: what one process's actor
writes now (`SqliteBus.append`): the entry with its note, the snapshot every
SNAPSHOT_EVERY events, the rows of one loop turn in one transaction. Two patterns, in
one process, medians of 3:
- `1 room`: one room commits event after event (each awaited): the latency of a commit;
- `N rooms`: N rooms commit at once, each its events one after another: throughput,
  where the FULL writer's group commit shares one fsync among the rooms waiting.
CPU per event is `time.process_time()` (every thread of the process) over events;
p99 is one commit's wall time, as its room waits for it (inline: the event loop too).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson

from app.bus.base import Frame
from app.bus.memory import MemoryBus
from app.bus.sqlite.bus import SqliteBus
from app.rooms.actor import SNAPSHOT_EVERY

# A BANK room of 8 players mid-game, as the snapshot's JSON weighs: ~2 KB.
SNAPSHOT = orjson.dumps(
    {
        "code": "ABCD",
        "seq": 120,
        "hash": "f" * 64,
        "tokens": {f"{n:064x}": f"p{n}" for n in range(8)},
        "accepted": {f"p{n}": {f"c{n}-{k}": 100 + k for k in range(6)} for n in range(8)},
        "state": {
            "players": [{"id": f"p{n}", "name": f"Player {n}", "score": 400} for n in range(8)],
            "rounds_log": [{"bank": 170, "ended_by": "seven"} for _ in range(4)],
        },
    }
)
ENTRY = orjson.dumps(
    {
        "seq": 121,
        "at": 1_760_000_000_000,
        "type": "bank",
        "by": "p3",
        "data": {"player_id": "p3", "amount": 170},
        "hash": "e" * 64,
    }
)
FRAME = Frame("state", 121, SNAPSHOT.decode())
NOTE = orjson.dumps({"id": "c3-17"})


def drop(_: str, __: Any) -> None:
    """The frames and replies go nowhere: only the store is measured."""


async def commit_run(
    bus: Any, code: str, events: int, took: list[float], journal: bool = False
) -> None:
    await bus.create_room(code, SNAPSHOT, ENTRY)
    epoch = await bus.claim(code)
    for n in range(1, events + 1):
        started = time.perf_counter()
        if journal:
            snapshot = SNAPSHOT if n % SNAPSHOT_EVERY == 0 else None
            assert await bus.append(code, epoch, str(n), [(ENTRY, NOTE)], snapshot, [FRAME])
        else:
            assert await bus.commit(code, epoch, str(n), SNAPSHOT, [ENTRY], [FRAME])
        took.append(time.perf_counter() - started)


async def measure(
    make: Callable[[Path], Any], rooms: int, events: int, journal: bool = False
) -> tuple[float, float, float]:
    """(events per second, CPU µs per event, p99 µs of one commit) of `rooms` rooms
    committing `events` each."""
    took: list[float] = []
    with tempfile.TemporaryDirectory(prefix="bench-store-") as tmp:
        bus = make(Path(tmp) / "bankit.sqlite3")
        await bus.start(drop, drop)
        wall, cpu = time.perf_counter(), time.process_time()
        runs = (commit_run(bus, f"R{n:04d}", events, took, journal) for n in range(rooms))
        await asyncio.gather(*runs)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        await bus.close()
    total = rooms * events
    took.sort()
    return total / wall, cpu / total * 1e6, took[int(len(took) * 0.99)] * 1e6


STORES: dict[str, Callable[[Path], Any]] = {
    "memory": lambda _: MemoryBus(),
    "sqlite NORMAL (inline)": lambda path: SqliteBus(path, "NORMAL"),
    "sqlite NORMAL (thread)": lambda path: SqliteBus(path, "NORMAL", threaded=True),
    "sqlite FULL (thread, group)": lambda path: SqliteBus(path, "FULL"),
    "sqlite FULL (inline)": lambda path: SqliteBus(path, "FULL", threaded=False),
    "sqlite NORMAL journal": lambda path: SqliteBus(path, "NORMAL"),
    "sqlite FULL journal": lambda path: SqliteBus(path, "FULL"),
}


async def run(events: int, rooms: int, only: str) -> None:
    print(f"{'store':<28} {'pattern':<10} {'events/s':>10} {'CPU µs/event':>13} {'p99 µs':>8}")
    for name, make in STORES.items():
        if only not in name:
            continue
        slow = "FULL" in name  # an fsync each: fewer events, same statistics
        for pattern, n_rooms, n_events in (
            ("1 room", 1, events // (10 if slow else 1)),
            (f"{rooms} rooms", rooms, max(1, events // rooms // (2 if slow else 1))),
        ):
            journal = "journal" in name
            results = [await measure(make, n_rooms, n_events, journal) for _ in range(3)]
            rate = statistics.median(r[0] for r in results)
            cpu = statistics.median(r[1] for r in results)
            p99 = statistics.median(r[2] for r in results)
            print(f"{name:<28} {pattern:<10} {rate:>10,.0f} {cpu:>13.1f} {p99:>8,.0f}")


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.store", description=__doc__)
    parser.add_argument("--events", type=int, default=3000)
    parser.add_argument("--rooms", type=int, default=100)
    parser.add_argument("--only", default="", help="the stores whose name has this")
    args = parser.parse_args()
    asyncio.run(run(args.events, args.rooms, args.only))


if __name__ == "__main__":
    main()
