"""Summarise a py-spy raw (folded) profile: where the samples go, by function.

    python -m bench.folded FILE [--top 25]

`py-spy record --format raw` writes one line per distinct stack, `frame;frame;... N`,
outermost first. This prints the share of samples whose stack passes through each
function (inclusive: they nest, so they overlap) and the share where it is the leaf
(self time), for the event loop's thread; other threads (SQLite's writer and
checkpointer) are summarised apart. Samples whose leaf is a wait (epoll, an idle
executor thread: `--idle` recordings) are counted apart: shares are of busy samples.
Last, each busy sample of the loop's thread goes to one part of bankit's per-action work
(`PARTS`: the first part with a function anywhere on its stack), so the parts add up.
"""

from __future__ import annotations

import argparse
import re
from collections import Counter
from pathlib import Path

FRAME = re.compile(r"^(?P<name>.+?) \((?P<file>[^:()]+)(?::\d+)?\)$")
# Leaves that mean "waiting": the loop's epoll, an executor thread's empty queue.
IDLE_LEAVES = ("EpollSelector.select (", "select (selectors.py", "_worker (concurrent/futures")
# bankit's per-action work, in the order a sample is claimed: the socket writes inside the
# fan-out count as writes, the commit inside the actor as the commit, and so on.
PARTS: tuple[tuple[str, tuple[str, ...]], ...] = (
    (
        "socket writes (transport.write)",
        ("RoomSocketProtocol.write ", "RoomSocketProtocol.uncork "),
    ),
    ("fan-out: the patch message", ("Hub._patch ", "_changes ", "diff (app/games/patch")),
    ("fan-out: per socket, the ack", ("Connection.push_patch ", "Hub.on_frame ", "Hub.on_reply ")),
    ("SQLite commit", ("Writer.", "SqliteBus.append.<locals>.store ")),
    ("the view when read", ("Rendering.",)),
    ("rules and the patch", ("Room._command ", "Room.handle ", "Room.state_frame ")),
    (
        "event log entries",
        ("chain (app/rooms/eventlog", "make_entry ", "decode (app/rooms/envelope"),
    ),
    ("actor, bus, registry", ("RoomActor.", "LocalBus.", "SqliteBus.", "RoomRegistry.")),
    ("receiving: frames, session", ("RoomSocketProtocol.data_received ", "Session.")),
    ("keepalive pings", ("WebSocketsSansIOProtocol.send_keepalive_ping ",)),
)


def part(frames: list[str]) -> str:
    """The part of the work a busy stack counts for; uvloop's own C code (its polling and
    reads) shows as the bare loop, so "the rest" holds it."""
    for name, markers in PARTS:
        if any(frame.startswith(markers) for frame in frames):
            return name
    return "the rest (the loop itself, timers, the collector)"


def function(frame: str) -> str:
    """`send_text (starlette/websockets.py:123)` -> `send_text (starlette/websockets.py)`."""
    match = FRAME.match(frame.strip())
    if match is None:
        return frame.strip()
    file = match["file"].split("site-packages/")[-1].split("/work/wt-bench/")[-1]
    return f"{match['name']} ({file})"


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.folded", description=__doc__)
    parser.add_argument("file", type=Path)
    parser.add_argument("--top", type=int, default=25)
    args = parser.parse_args()
    inclusive: Counter[str] = Counter()
    leaf: Counter[str] = Counter()
    busy = idle = 0
    threads: Counter[str] = Counter()
    parts: Counter[str] = Counter()
    for line in args.file.read_text().splitlines():
        stack, _, count_text = line.rpartition(" ")
        if not stack or not count_text.isdigit():
            continue
        count = int(count_text)
        frames = [function(f) for f in stack.split(";") if f]
        if not frames or frames[-1].startswith(IDLE_LEAVES):
            idle += count
            continue
        if frames[0].startswith("Thread._bootstrap"):  # not the event loop's thread
            threads[frames[-1]] += count
            continue
        busy += count
        leaf[frames[-1]] += count
        parts[part(frames)] += count
        for name in set(frames):
            inclusive[name] += count
    total = busy + idle
    other = sum(threads.values())
    print(
        f"{total} samples: {busy} busy in the event loop's thread, "
        f"{other} busy in other threads, {idle} waiting"
    )
    for name, count in threads.most_common(5):
        print(f"  other threads: {count / max(total, 1):.1%} of all samples in {name}")
    print(f"\n{'incl %':>6}  function (share of busy samples through it)")
    for name, count in inclusive.most_common(args.top):
        print(f"{count / max(busy, 1):>6.1%}  {name}")
    print(f"\n{'self %':>6}  function (share of busy samples where it is the leaf)")
    for name, count in leaf.most_common(args.top):
        print(f"{count / max(busy, 1):>6.1%}  {name}")
    print(f"\n{'part %':>6}  part of the work (share of busy samples; they add up)")
    for name, count in parts.most_common():
        print(f"{count / max(busy, 1):>6.1%}  {name}")


if __name__ == "__main__":
    main()
