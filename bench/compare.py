"""bankit side by side with a naive FastAPI loop (bench/naive.py), one command (issue 12).

    python -m bench.compare [--systems naive,sqlite,redis] [--rooms 50,250,500,...]
                            [--seconds 15] [--warmup 4] [--runs 1] [--quick]

Systems: `naive` (bench/naive.py); `sqlite`, bankit's default (one process,
BANKIT_STORE=sqlite in a fresh temp data dir); `redis`, bankit in one process with a
redis-server of its own; `sqlite@REV` (`redis@REV`), the default (with Redis) with this
repository's `app/` as it was at git revision REV (before and after a change, in one
run); `memory`, bankit with no store; `floor`, `floor-file`, `floor-memory` and
`floor-redis`, bench/floor.py (the least a durable server does per action, its log in
SQLite, in a file of its own, nowhere, or in a redis-server of its own). Every step
starts fresh servers pinned to CPU 0 (taskset), the load generator (bench/load.py's
workers) on CPU 1, with the same options for all: rooms of 11 sockets (banker, 8
players, 2 spectators), 2 actions a second per room, a real game: `--game scripted` (the
default), 20 rounds of three safe rolls, six players BANK, a 7 (60 % of actions are
players' BANKs, every one valid, and `rounds_log` grows); `--game random`, 100 rounds of
a random valid mix, 40 % fair rolls and 60 % BANKs by players who have not banked yet
(the independent harness's game); `--rounds` changes the length; `--skip-rounds N`: each
room first plays N rounds' worth of actions as fast as they are acked (unmeasured), so
that the window sees a game well under way (a long `rounds_log`); the header says which
game was played. bankit's sockets ask for states as patches, as the pages do
(`--whole-states`: they do not). bankit's clients wait for acks; the naive server sends
none, so an action's seq is counted. At each number of rooms the systems still passing
run back to back; a system stops at its first step over the limit (p99 > 100 ms, or any
error; a failing step is run a second time first, since one stall of this shared machine
can fail a step). Then memory: RSS growth for 2,000 idle spectators in one room, per
socket. With `--runs N` everything is repeated and the tables show medians. Under each
bankit step: its event loop's lag in the window (/metrics,
`bankit_event_loop_lag_seconds`: a timer due every 0.25 s, how late it ran). `--profile
DIR`: py-spy samples the bankit (sqlite) server during its 500-room window
(`--profile-rooms`; raw folded stacks in DIR/bankit.txt).
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from bench import lag, load
from bench.cluster import (
    FD_LIMIT,
    ROOT,
    SOCKETS_PER_WORKER,
    _idle_sockets,
    cpu_seconds,
    free_port,
    percentile,
    pinned,
    rss_kib,
    wait_http,
)

OTHERS = ("naive", "floor", "floor-redis", "floor-file", "floor-memory")  # not bankit
# memory (what the store costs) and the floors (bench/floor.py: the least a durable server
# does per action, its log in SQLite, in Redis, in a file of its own, or none) are opt-in
SYSTEMS = ("sqlite", "redis", "memory", *OTHERS)
DEFAULT_SYSTEMS = "naive,sqlite,redis"
STORES = {"memory": "memory", "floor-memory": "memory", "floor-file": "file"}  # BANKIT_STORE
ROUNDS = 20  # the UI's default game: 200 actions, 100 s at 2 a second
# --game: (bench/load.py's plan, default rounds, what the header says)
GAMES = {
    "scripted": ("game", ROUNDS, "scripted rounds (3 safe rolls, 6 BANKs, a 7)"),
    "random": ("random", 100, "a random valid mix (40 % rolls, 60 % BANKs)"),
}
FULL_STEPS = "50,250,500,750,1000,1500,1750"
QUICK_STEPS = "50,250"


@dataclass
class Server:
    """One server process (and its redis-server), pinned to CPU 0."""

    process: subprocess.Popen[bytes]
    port: int
    redis: subprocess.Popen[bytes] | None
    workdir: str

    @classmethod
    def start(cls, system: str) -> Server:
        workdir = tempfile.mkdtemp(prefix=f"bankit-compare-{system}-")
        port = free_port()
        env = {
            **os.environ,
            "BANKIT_LOG_LEVEL": "warning",
            "BANKIT_MAX_CONNECTIONS": "100000",
            "BANKIT_MAX_OPEN_CONNECTIONS": "100000",  # 1,500 rooms are 16,500 sockets
            "BANKIT_MAX_ROOMS": "100000",
            "BANKIT_STORE": STORES.get(system, "sqlite"),
            "BANKIT_DATA_DIR": str(Path(workdir) / "data"),
        }
        env.pop("REDIS_URL", None)
        redis = None
        if system.partition("@")[0] in ("redis", "floor-redis"):
            redis_port = free_port()
            redis = subprocess.Popen(
                pinned(
                    [
                        shutil.which("redis-server") or "redis-server",
                        "--port",
                        str(redis_port),
                        "--bind",
                        "127.0.0.1",
                        "--save",
                        "",
                        "--appendonly",
                        "no",
                        "--dir",
                        workdir,
                    ],
                    0,
                ),
                stdout=subprocess.DEVNULL,
            )
            env["REDIS_URL"] = f"redis://127.0.0.1:{redis_port}/0"
        module = "bench." + system.partition("-")[0] if system in OTHERS else "app"
        command = [sys.executable, "-m", module, "--host", "127.0.0.1", "--port", str(port)]
        log = open(Path(workdir) / "server.log", "wb")  # noqa: SIM115 - lives with the process
        code = checkout(system.partition("@")[2], workdir) if "@" in system else ROOT
        process = subprocess.Popen(
            pinned(command, 0), cwd=code, env=env, stdout=log, stderr=subprocess.STDOUT
        )
        server = cls(process, port, redis, workdir)
        try:
            wait_http(f"http://127.0.0.1:{port}/readyz")
        except RuntimeError:
            server.stop()
            raise
        return server

    def cpu(self) -> tuple[float, float]:
        redis = cpu_seconds(self.redis.pid) if self.redis else 0.0
        return cpu_seconds(self.process.pid), redis

    def stop(self) -> None:
        for process in (self.process, self.redis):
            if process is not None:
                process.send_signal(signal.SIGKILL)
                process.wait(10)
        shutil.rmtree(self.workdir, ignore_errors=True)


def checkout(rev: str, workdir: str) -> Path:
    """This repository's `app/` (and the `static/` it serves) at `rev`, for `sqlite@REV`."""
    folder = Path(workdir) / "code"
    folder.mkdir()
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", rev, "app", "static"], check=True, capture_output=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive, check=True)
    return folder


def run_step(
    system: str,
    rooms: int,
    warmup: float,
    seconds: float,
    profile: Path | None = None,
    game: str = "scripted",
    rounds: int = ROUNDS,
    patches: bool = True,
    skip_rounds: int = 0,
    probe: Callable[[str], Any] | None = None,
) -> dict[str, Any]:
    """One step; `probe(base_url)` (bench/gcpause.py's) is read as the measured window
    starts and ends, both readings returned as `probed`."""
    if rooms * load.SOCKETS > FD_LIMIT:
        return {"rooms": rooms, "skipped": f"{rooms * load.SOCKETS} sockets > the fd limit"}
    server = Server.start(system)
    spy = None
    try:
        bankit = system != "naive"
        skip = skip_rounds * len(load.GAME_ROUND)  # actions (about as many rounds, random)
        options = (GAMES[game][0], bankit, rounds, bankit and patches, skip)
        try:
            pipes, procs = load.start_workers(
                [server.port], rooms, SOCKETS_PER_WORKER, warmup, seconds, *options
            )
        except RuntimeError as error:  # not every room could be seated: a failed step
            return unseated(rooms, error)
        time.sleep(warmup)
        if profile is not None:
            spy = start_profile(server.process.pid, seconds, profile)
        base = f"http://127.0.0.1:{server.port}"
        metered = system not in OTHERS  # bankit has /metrics
        lag0 = lag.read(base) if metered else {}
        probed = [probe(base)] if probe is not None else []
        app0, redis0 = server.cpu()
        time.sleep(seconds)
        app1, redis1 = server.cpu()
        probed += [probe(base)] if probe is not None else []
        lag1 = lag.read(base) if metered else {}
        results = [pipe.recv() for pipe in pipes]
        for proc in procs:
            proc.join(30)
        if spy is not None:
            spy.wait(60)
        latencies = [x for r in results for x in r["latencies"]]
        sizes = [x for r in results for x in r["state_bytes"]]
        actions = sum(r["actions"] for r in results)
        errors = sum(r["error_count"] for r in results)
        p99 = percentile(latencies, 0.99)
        return {
            "rooms": rooms,
            "actions_per_s": actions / seconds,
            "p50": percentile(latencies, 0.50),
            "p99": p99,
            "max": max(latencies) if latencies else float("nan"),
            "errors": errors,
            "error_samples": [e for r in results for e in r["errors"]][:3],
            "cpu_us": (app1 - app0) / max(actions, 1) * 1e6,
            "redis_cpu_us": (redis1 - redis0) / max(actions, 1) * 1e6,
            "bytes_min": min(sizes, default=0),
            "bytes_mean": statistics.fmean(sizes) if sizes else 0.0,
            "bytes_max": max(sizes, default=0),
            "ok": errors == 0 and p99 <= 100 and actions >= 0.9 * rooms * seconds / load.PERIOD,
            "lag": lag.window(lag0, lag1),  # the server's loop lag in the window (bankit)
            "probed": probed,
        }
    finally:
        if spy is not None and spy.poll() is None:
            spy.kill()
        server.stop()


def unseated(rooms: int, error: Exception) -> dict[str, Any]:
    nan = float("nan")
    measures = ("p50", "p99", "max", "cpu_us", "redis_cpu_us", "bytes_min", "bytes_mean")
    return {
        "rooms": rooms,
        "actions_per_s": 0.0,
        **dict.fromkeys((*measures, "bytes_max"), nan),
        "errors": 1,
        "error_samples": [f"setup: {error}"],
        "ok": False,
    }


def start_profile(pid: int, seconds: float, folder: Path) -> subprocess.Popen[bytes]:
    """py-spy on the server for the measured window: an SVG and raw folded stacks."""
    folder.mkdir(parents=True, exist_ok=True)
    spy = shutil.which("py-spy") or str(Path(sys.executable).with_name("py-spy"))
    duration = str(max(1, int(seconds) - 1))
    return subprocess.Popen(
        [spy, "record", "--pid", str(pid), "--duration", duration, "--rate", "200"]
        + [
            "--format",
            "raw",
            "--output",
            str(folder / "bankit.txt"),
            "--nonblocking",
            "--idle",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def idle_memory(system: str, sockets: int) -> float:
    """KiB of RSS per idle spectator socket (`sockets` of them in one room)."""
    server = Server.start(system)
    try:
        base = f"http://127.0.0.1:{server.port}"
        code = httpx.post(f"{base}/api/rooms", json={"game": "bank"}).json()["code"]
        time.sleep(1)
        before = rss_kib(server.process.pid)
        context = multiprocessing.get_context("fork")
        mine, theirs = context.Pipe()
        proc = context.Process(target=_idle_sockets, args=(theirs, server.port, code, sockets))
        proc.start()
        mine.recv()
        time.sleep(2)
        per_socket = (rss_kib(server.process.pid) - before) / sockets
        mine.send("bye")
        proc.join(30)
        return per_socket
    finally:
        server.stop()


def one_run(
    systems: list[str], steps: list[int], args: argparse.Namespace, run: int
) -> dict[str, Any]:
    """Every step for the systems still passing, back to back; then memory."""
    table: dict[str, list[dict[str, Any]]] = {s: [] for s in systems}
    alive = list(systems)
    print(f"\n== run {run} ==", flush=True)
    print(HEADER, flush=True)
    for rooms in steps:
        for system in list(alive):
            sampled = system == "sqlite" and rooms == args.profile_rooms and run == 1
            profile = args.profile if sampled else None
            game = (args.game, args.rounds, args.patches, args.skip_rounds)
            step = run_step(system, rooms, args.warmup, args.seconds, profile, *game)
            if not step.get("ok") and "skipped" not in step:
                print(row(system, step) + "  (retried once: the machine is shared)", flush=True)
                step = run_step(system, rooms, args.warmup, args.seconds, profile, *game)
            table[system].append(step)
            print(row(system, step), flush=True)
            if not step.get("ok"):
                alive.remove(system)
        if not alive:
            break
    memory = {s: idle_memory(s, args.idle) for s in systems}
    for system in systems:
        print(f"{system:<12} memory per idle socket: {memory[system]:.1f} KiB", flush=True)
    return {"steps": table, "memory": memory}


HEADER = (
    f"{'system':<12} {'rooms':>6} {'act/s':>6} {'p50 ms':>7} {'p99 ms':>7} {'max ms':>7} "
    f"{'errors':>6} {'µs/act':>7} {'+redis':>6} {'bytes/state min→max':>20}"
)


def row(system: str, step: dict[str, Any]) -> str:
    if "skipped" in step:
        return f"{system:<12} {step['rooms']:>6} skipped: {step['skipped']}"
    sizes = f"{step['bytes_min']:.0f}→{step['bytes_max']:.0f}"
    line = (
        f"{system:<12} {step['rooms']:>6} {step['actions_per_s']:>6.0f} {step['p50']:>7.1f} "
        f"{step['p99']:>7.1f} {step['max']:>7.0f} {step['errors']:>6} {step['cpu_us']:>7.0f} "
        f"{step['redis_cpu_us']:>6.0f} {sizes:>20}"
    )
    if not step.get("ok"):
        line += "  <- over the limit"
    if step.get("lag"):
        line += f"\n{'':>14}loop lag {lag.line(step['lag'])}"
    for sample in step.get("error_samples", []):
        line += f"\n{'':>14}e.g. {sample}"
    return line


def median_of(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def summarise(runs: list[dict[str, Any]], systems: list[str], steps: list[int]) -> None:
    """Medians over the runs, then bankit/naive ratios against the issue's goals."""
    n = len(runs)
    print(f"\n== medians over {n} run(s) (capacity = most rooms with p99 <= 100 ms, no error) ==")
    print(
        f"{'system':<12} {'rooms':>6} {'passed':>6} {'p50 ms':>7} {'p99 ms':>7} "
        f"{'µs/act':>7} {'+redis':>6} {'bytes/state mean':>16}"
    )
    med: dict[str, dict[int, dict[str, float]]] = {s: {} for s in systems}
    for system in systems:
        for rooms in steps:
            found = [
                s
                for r in runs
                for s in r["steps"][system]
                if s["rooms"] == rooms and "skipped" not in s
            ]
            if not found:
                continue
            m = {k: median_of([s[k] for s in found]) for k in ("p50", "p99", "cpu_us")}
            m |= {k: median_of([s[k] for s in found]) for k in ("redis_cpu_us", "bytes_mean")}
            m["passed"] = sum(1 for s in found if s["ok"])
            m["ran"] = len(found)
            med[system][rooms] = m
            print(
                f"{system:<12} {rooms:>6} {int(m['passed']):>3}/{len(found):<2} {m['p50']:>7.1f} "
                f"{m['p99']:>7.1f} {m['cpu_us']:>7.0f} {m['redis_cpu_us']:>6.0f} "
                f"{m['bytes_mean']:>16.0f}"
            )
    capacity = {
        s: median_of(
            [max((x["rooms"] for x in r["steps"][s] if x.get("ok")), default=0) for r in runs]
        )
        for s in systems
    }
    memory = {s: median_of([r["memory"][s] for r in runs]) for s in systems}
    first = {
        s: median_of([x["bytes_min"] for r in runs for x in r["steps"][s][:1]]) for s in systems
    }
    last = {
        s: median_of([x["bytes_max"] for r in runs for x in r["steps"][s][:1]]) for s in systems
    }

    def at(system: str, rooms: int) -> str:
        m = med[system].get(rooms)
        return f"{m['cpu_us']:.0f}" if m else "-"

    print(
        f"\n{'system':<12} {'capacity':>8} {'µs/act @50':>10} {'µs/act @500':>11} "
        f"{'p50/p99 ms @50':>14} {'KiB/idle socket':>15} {'bytes/state @50':>15}"
    )
    for system in systems:
        m50 = med[system].get(50)
        lat = f"{m50['p50']:.1f}/{m50['p99']:.1f}" if m50 else "-"
        sizes = f"{first[system]:.0f}→{last[system]:.0f}"
        print(
            f"{system:<12} {capacity[system]:>8.0f} {at(system, 50):>10} {at(system, 500):>11} "
            f"{lat:>14} {memory[system]:>15.1f} {sizes:>15}"
        )
    if "naive" not in systems:
        return
    print("\n== bankit / naive (the goals of issues 12 and 31) ==")
    for system in (s for s in systems if s != "naive"):
        # CPU per action at every step from 50 to 1,000 rooms that both systems ran
        cpu = {
            r: med[system][r]["cpu_us"] / med["naive"][r]["cpu_us"]
            for r in steps
            if 50 <= r <= 1000 and r in med[system] and r in med["naive"]
        }
        both = [
            r
            for r in steps
            if r in med[system]
            and r in med["naive"]
            and med[system][r]["passed"] * 2 > n
            and med["naive"][r]["passed"] * 2 > n
        ]
        slower = [r for r in both if med[system][r]["p99"] > med["naive"][r]["p99"]]
        cap = capacity[system] / capacity["naive"] if capacity["naive"] else float("nan")
        mem = memory[system] / memory["naive"] if memory["naive"] else float("nan")
        per_step = "  ".join(f"@{r} {x:.2f}×" for r, x in cpu.items())
        print(
            f"{system:<12} capacity {cap:.2f}×  CPU/action {per_step or '-'}"
            f"  memory/idle socket {mem:.2f}×  p99 above naive at {slower or 'no step'} of {both}"
        )
        # a capacity is only a lower bound where the system passed every step it ran
        top = max(steps)
        bounded = 0 < capacity["naive"] < top and capacity[system] < top
        for goal, met in goals(system, cpu, cap, bounded, both, slower, mem).items():
            verdict = "unknown" if met is None else "met    " if met else "NOT met"
            print(f"        {verdict}  {goal}")


def goals(
    system: str,
    cpu: dict[int, float],
    capacity: float,
    bounded: bool,
    both: list[int],
    slower: list[int],
    memory: float,
) -> dict[str, bool | None]:
    """The issues' goals for a system beside the naive loop, each met or not (CPU per
    action: at every step from 50 to 1,000 rooms that both ran, the steps named). Not
    `bounded` (one of them passed every step, or the naive loop none), a capacity goal
    is unknown (None); so is the p99 goal when no step was passed by both."""
    steps = ",".join(str(r) for r in cpu) or "none"

    def at_least(target: float) -> bool | None:
        return capacity >= target if bounded else None

    if not system.startswith(("redis", "floor-redis")):
        return {
            f"CPU per action <= 0.7 × naive at every step (ran: {steps})": bool(cpu)
            and max(cpu.values()) <= 0.7,
            "capacity >= 2 × naive": at_least(2),
            "fan-out p99 <= naive at every step both pass": not slower if both else None,
            "memory per idle socket <= 0.5 × naive": memory <= 0.5,
        }
    return {  # redis: one process with its backplane
        "capacity >= 1 × naive (one process, Redis)": at_least(1),
        f"CPU per action <= 1.0 × naive at every step (ran: {steps})": bool(cpu)
        and max(cpu.values()) <= 1.0,
    }


def stop_on_term(signum: int, frame: object) -> None:
    raise SystemExit(f"stopped by signal {signum}")


def main() -> None:
    parser = argparse.ArgumentParser(
        prog="python -m bench.compare",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--systems", default=DEFAULT_SYSTEMS)
    parser.add_argument("--rooms", default=None, help=f"steps (default {FULL_STEPS})")
    parser.add_argument("--seconds", type=float, default=None, help="measured (default 15)")
    parser.add_argument("--warmup", type=float, default=None, help="seconds (default 4)")
    parser.add_argument("--idle", type=int, default=None, help="idle sockets (default 2000)")
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--quick", action="store_true", help="a ~2-minute smoke run")
    parser.add_argument(
        "--nice", type=int, default=0, help="e.g. -10 on a busy machine (as root): all ours"
    )
    parser.add_argument("--profile", type=Path, default=None, help="py-spy output folder")
    parser.add_argument("--profile-rooms", type=int, default=500, help="the step it samples")
    parser.add_argument("--game", choices=sorted(GAMES), default="scripted")
    parser.add_argument("--rounds", type=int, default=None, help="the game's length")
    parser.add_argument(
        "--skip-rounds",
        type=int,
        default=0,
        help="each room first plays this many rounds' actions as fast as acked, unmeasured",
    )
    parser.add_argument(
        "--whole-states",
        dest="patches",
        action="store_false",
        help="bankit's clients do not ask for states as patches (the pages do)",
    )
    args = parser.parse_args()
    args.rounds = args.rounds or GAMES[args.game][1]
    quick = args.quick
    args.rooms = args.rooms or (QUICK_STEPS if quick else FULL_STEPS)
    args.seconds = args.seconds or (5.0 if quick else 15.0)
    args.warmup = args.warmup or 4.0  # Redis: ~100 ms hiccups in the first seconds
    args.idle = args.idle or (500 if quick else 2000)
    left = (args.rounds - args.skip_rounds) * len(load.GAME_ROUND) * load.PERIOD
    if args.game == "scripted" and args.warmup + args.seconds > left - 5:
        parser.error("the game would end inside the window: fewer seconds")
    systems = args.systems.split(",")
    revised = ("sqlite", "redis")  # SYSTEM@REV: app/ as it was at git revision REV
    unknown = {s for s in systems if s.partition("@")[0] not in revised or "@" not in s}
    unknown -= set(SYSTEMS)
    if unknown:
        parser.error(f"unknown systems {sorted(unknown)}; choose from {SYSTEMS}")
    steps = [int(r) for r in args.rooms.split(",")]
    if (os.cpu_count() or 1) >= 2:
        os.sched_setaffinity(0, {1})  # the load generator (and its workers) on CPU 1
    if args.nice:  # the servers, redis-server and the generator's workers inherit it
        os.setpriority(os.PRIO_PROCESS, 0, args.nice)
    signal.signal(signal.SIGTERM, stop_on_term)  # a kill still stops this run's servers
    print(
        f"bench.compare {time.strftime('%Y-%m-%d %H:%M')}: systems {systems}, rooms {steps}, "
        f"{args.warmup:g} s warm-up + {args.seconds:g} s, {args.runs} run(s), nice {args.nice}"
        f"\ngame: {args.rounds} rounds of {GAMES[args.game][2]}"
        + (f", measured from round ~{args.skip_rounds}" if args.skip_rounds else "")
        + "; bankit's sockets get states "
        + ("as patches (docs/protocol.md)" if args.patches else "whole"),
        flush=True,
    )
    runs = [one_run(systems, steps, args, n + 1) for n in range(args.runs)]
    summarise(runs, systems, steps)


if __name__ == "__main__":
    main()
