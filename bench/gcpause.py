"""The garbage collector's pauses under load, one server per threshold setting.

    python -m bench.gcpause [--rooms 750] [--seconds 30] [--runs 1]
                            [--thresholds 2000,5,25000 250,1,200000 ...]

For each `gc.set_threshold` setting (`BANKIT_GC_THRESHOLDS`), in turn: bankit's
default server (one process, SQLite) pinned to CPU 0, `--rooms` rooms of the random
game (bench/compare.py's) played from CPU 1, and for the measured window the fan-out
p99, the server's CPU per action, and per generation the collections, their mean
pause, the share of the window they held the process and how many took over 10 ms
(from /metrics' `bankit_gc_pause_seconds`). One row per setting and run.
"""

from __future__ import annotations

import argparse
import os
import re
import time

import httpx

from bench.compare import run_step

PAUSES = re.compile(r'bankit_gc_pause_seconds_(sum|count)\{generation="(\d)"\} (\S+)')
OVER_10MS = re.compile(r'bankit_gc_pause_seconds_bucket\{generation="(\d)",le="0.01"\} (\S+)')


def pauses(base: str) -> dict[tuple[str, str], float]:
    """(sum | count | fast, generation) -> the value now; fast: pauses of at most 10 ms."""
    text = httpx.get(f"{base}/metrics", timeout=5).text
    found = {(kind, gen): float(value) for kind, gen, value in PAUSES.findall(text)}
    found |= {("fast", gen): float(value) for gen, value in OVER_10MS.findall(text)}
    return found


def measure(thresholds: str, rooms: int, seconds: float) -> str:
    os.environ["BANKIT_GC_THRESHOLDS"] = f"[{thresholds}]"
    step = run_step("sqlite", rooms, 4, seconds, game="random", probe=pauses)
    if not step.get("probed"):  # too many sockets, or the rooms could not be seated
        return f"{thresholds:>14} not measured: {step.get('skipped') or step['error_samples']}"
    before, after = step["probed"]
    row = f"{thresholds:>14} {step['p99']:7.1f} {step['errors']:6} {step['cpu_us']:7.0f}"
    for gen in "012":
        count = after.get(("count", gen), 0) - before.get(("count", gen), 0)
        held = after.get(("sum", gen), 0) - before.get(("sum", gen), 0)
        slow = count - (after.get(("fast", gen), 0) - before.get(("fast", gen), 0))
        mean = held / count * 1000 if count else 0.0
        row += f" {count:6.0f} {mean:6.2f} {held / seconds * 100:5.1f}% {slow:5.0f}"
    return row


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.gcpause", description=__doc__)
    parser.add_argument("--rooms", type=int, default=750)
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--thresholds", nargs="+", default=["2000,5,25000", "250,1,200000"])
    args = parser.parse_args()
    print(
        f"bench.gcpause {time.strftime('%Y-%m-%d %H:%M')}: {args.rooms} rooms of the random "
        f"game, {args.seconds:.0f} s measured"
    )
    head = "".join(f" {'g' + g + ' runs':>6} {'mean':>6} {'share':>6} {'>10ms':>5}" for g in "012")
    print(f"{'thresholds':>14} {'p99 ms':>7} {'errors':>6} {'µs/act':>7}{head}", flush=True)
    for _ in range(args.runs):
        for thresholds in args.thresholds:
            print(measure(thresholds, args.rooms, args.seconds), flush=True)


if __name__ == "__main__":
    main()
