"""Fan-out of one state change to a room of 12 connections, in one server process.

    python -m bench.fanout [--changes 1000] [--connections 12]

Starts `python -m app` (memory bus) pinned to CPU 0 when there are two CPUs, runs
the clients pinned to CPU 1, and has the banker enter rolls one after another.
Fan-out time = from the banker's send to the moment the LAST of the room's
connections has received the state with that roll's seq. Prints a table.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import httpx
from websockets.asyncio.client import ClientConnection, connect

ROOT = Path(__file__).resolve().parents[1]
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


def start_server(port: int) -> subprocess.Popen[bytes]:
    command = [sys.executable, "-m", "app", "--host", "127.0.0.1", "--port", str(port)]
    if (os.cpu_count() or 1) >= 2:
        command = ["taskset", "-c", "0", *command]
        os.sched_setaffinity(0, {1})
    # Rolls go back to back here, far above any table's pace: lift the rate limit.
    env = {**os.environ, "BANKIT_LOG_LEVEL": "warning", "BANKIT_RATE_PER_SECOND": "100000"}
    env["BANKIT_STORE"] = "memory"  # the memory bus, as the docstring says (no data/ left)
    env.pop("REDIS_URL", None)
    process = subprocess.Popen(command, cwd=ROOT, env=env)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1)
            return process
        except httpx.HTTPError:
            time.sleep(0.05)
    process.kill()
    raise RuntimeError("server did not start")


async def wait_seq(ws: ClientConnection, seq: int) -> float:
    while True:
        message = json.loads(await asyncio.wait_for(ws.recv(), 10))
        if message.get("type") == "state" and message["state"]["seq"] >= seq:
            return time.perf_counter()


async def run(port: int, changes: int, connections: int) -> dict[str, float]:
    base, ws_base = f"http://127.0.0.1:{port}", f"ws://127.0.0.1:{port}"
    room = httpx.post(f"{base}/api/rooms", json={"rounds": 100}).json()
    code = room["code"]
    players = connections - 2  # plus the banker and one spectator
    tokens = [
        httpx.post(f"{base}/api/rooms/{code}/players", json={"name": f"P{n}"}).json()["token"]
        for n in range(players)
    ]
    banker = await connect(f"{ws_base}/ws/rooms/{code}?token={room['banker_token']}")
    sockets = [banker, await connect(f"{ws_base}/ws/rooms/{code}")]
    sockets += [await connect(f"{ws_base}/ws/rooms/{code}?token={t}") for t in tokens]
    await banker.send(json.dumps({"type": "start", "id": "start"}))
    seq = 1 + players + 1  # create, the joins, start
    for ws in sockets:
        await wait_seq(ws, seq)

    times: list[float] = []
    cpu_before = None
    for n in range(changes + 50):  # the first 50 warm up
        if n == 50:
            cpu_before = cpu_seconds(server_pid)
        seq += 1
        sent = time.perf_counter()
        await banker.send(json.dumps({"type": "roll", "dice": [1, 2]}))
        arrivals = await asyncio.gather(*(wait_seq(ws, seq) for ws in sockets))
        if n >= 50:
            times.append(max(arrivals) - sent)
    cpu = cpu_seconds(server_pid) - (cpu_before or 0)
    for ws in sockets:
        await ws.close()
    times.sort()
    return {
        "median": statistics.median(times) * 1000,
        "p90": times[int(len(times) * 0.90)] * 1000,
        "p99": times[int(len(times) * 0.99)] * 1000,
        "max": times[-1] * 1000,
        "cpu_us": cpu / changes * 1e6,
    }


server_pid = 0


def main() -> None:
    global server_pid
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--changes", type=int, default=1000)
    parser.add_argument("--connections", type=int, default=12)
    parser.add_argument("--port", type=int, default=8799)
    args = parser.parse_args()
    process = start_server(args.port)
    server_pid = process.pid  # taskset execs python in place: the same pid
    try:
        result = asyncio.run(run(args.port, args.changes, args.connections))
    finally:
        process.terminate()
        process.wait(10)
    print(
        f"\nfan-out of one state change to {args.connections} connections, one process, "
        f"{args.changes} changes (memory bus)\n"
    )
    print("| median ms | p90 ms | p99 ms | max ms | server CPU per change µs |")
    print("|---:|---:|---:|---:|---:|")
    print(
        f"| {result['median']:.2f} | {result['p90']:.2f} | {result['p99']:.2f} | "
        f"{result['max']:.2f} | {result['cpu_us']:.0f} |"
    )


if __name__ == "__main__":
    main()
