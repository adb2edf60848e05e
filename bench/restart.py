"""How long a one-process server takes to come back with its rooms on disk.

    python -m bench.restart [--rooms 1000]

Starts `python -m app` (SQLite store) on a fresh data directory, creates `--rooms`
rooms over HTTP (each with two players joined), SIGKILLs it, starts it again on the
same directory, and times from the new process's spawn until /healthz answers and
until the last room's state (GET /api/rooms/{code}) answers: medians of `--repeats`
kill-and-restarts. The server adopts every
stored room before it serves (RoomRegistry.start), so the two times are close.
An empty data directory is timed the same way, for comparison. Prints a table.
"""

from __future__ import annotations

import argparse
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

from tests.conftest import free_port

ROOT = Path(__file__).resolve().parents[1]


def spawn(port: int, data_dir: Path) -> subprocess.Popen[bytes]:
    env = {**os.environ, "BANKIT_DATA_DIR": str(data_dir), "BANKIT_LOG_LEVEL": "warning"}
    env.pop("REDIS_URL", None)
    env.pop("BANKIT_STORE", None)
    command = [sys.executable, "-m", "app", "--host", "127.0.0.1", "--port", str(port)]
    return subprocess.Popen(command, cwd=ROOT, env=env)


def wait_ok(url: str, deadline: float) -> float:
    """Poll `url` until it answers 200; the moment it did."""
    while time.monotonic() < deadline:
        try:
            if httpx.get(url, timeout=1).status_code == 200:
                return time.monotonic()
        except httpx.HTTPError:
            pass
        time.sleep(0.005)
    raise RuntimeError(f"{url} did not answer")


def fill(base: str, rooms: int) -> str:
    """Create `rooms` rooms with two players each; the last room's code."""
    code = ""
    with httpx.Client(base_url=base, timeout=10) as client:
        for _ in range(rooms):
            response = client.post("/api/rooms", json={"game": "bank"})
            response.raise_for_status()
            code = response.json()["code"]
            for name in ("Ann", "Bob"):
                client.post(f"/api/rooms/{code}/players", json={"name": name}).raise_for_status()
    return code


def restart_times(rooms: int, repeats: int) -> tuple[float, float, float]:
    """Median (s to /healthz, s to the last room's state) of `repeats` SIGKILL-restarts
    on one data directory holding `rooms` rooms, and its MB on disk."""
    healthz, states = [], []
    with tempfile.TemporaryDirectory(prefix="bench-restart-") as tmp:
        data, port = Path(tmp), free_port()
        base = f"http://127.0.0.1:{port}"
        server = spawn(port, data)
        try:
            wait_ok(f"{base}/healthz", time.monotonic() + 20)
            code = fill(base, rooms) if rooms else ""
        finally:
            server.send_signal(signal.SIGKILL)
            server.wait(10)
        size = sum(f.stat().st_size for f in data.glob("bankit.sqlite3*")) / 1e6
        for _ in range(repeats):
            started = time.monotonic()
            server = spawn(port, data)
            try:
                healthy = wait_ok(f"{base}/healthz", started + 60)
                room = wait_ok(f"{base}/api/rooms/{code}", started + 60) if code else healthy
            finally:
                server.send_signal(signal.SIGKILL)
                server.wait(10)
            healthz.append(healthy - started)
            states.append(room - started)
    return statistics.median(healthz), statistics.median(states), size


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.restart", description=__doc__)
    parser.add_argument("--rooms", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    print(f"{'rooms on disk':>13} {'to /healthz':>12} {'to room state':>14} {'file MB':>8}")
    for rooms in (0, args.rooms):
        healthy, room, size = restart_times(rooms, args.repeats)
        print(f"{rooms:>13,} {healthy:>11.2f}s {room:>13.2f}s {size:>8.2f}")


if __name__ == "__main__":
    main()
