"""The scale-out benchmark: one command, a printed table.

    python -m bench.cluster [--configs memory,redis,redis3,redis-cluster]
                            [--rooms 50,200,300,400,500,750,...] [--seconds 15] [--warmup 4]

For each configuration (one process with the memory bus; one process with Redis;
three processes with Redis, each room's sockets spread over the three; three
processes on a local 3-master Redis Cluster the bench starts itself), and for each
number of rooms R: fresh servers (and a fresh redis-server of its own on a free port)
pinned to CPU 0 with `taskset`, the load generator (bench/load.py, split into worker
processes of at most ~9,000 sockets) on CPU 1; R rooms of 11 sockets, 2 actions a
second each. It reports fan-out latency p50/p99/max, errors, and server CPU per action
(the app processes; Redis's own CPU apart). Capacity = the most rooms with p99 <= 100 ms
and no errors; stepping stops at the first failing R. Then memory: RSS per idle
socket (2,000 spectators in one room) and per room (500 rooms without sockets).
"""

from __future__ import annotations

import argparse
import contextlib
import multiprocessing
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from bench import load

ROOT = Path(__file__).resolve().parents[1]
TICKS = os.sysconf("SC_CLK_TCK")
FD_LIMIT = 19_500  # sockets one process may hold here (ulimit -n is 20,000)
SOCKETS_PER_WORKER = 9_000
CONFIGS = {
    "memory": (1, False),
    "redis": (1, True),
    "redis3": (3, True),
    "redis-cluster": (3, True),
}
MASTERS = 3  # of the `redis-cluster` configuration


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def pinned(command: list[str], cpu: int) -> list[str]:
    return ["taskset", "-c", str(cpu), *command] if (os.cpu_count() or 1) >= 2 else command


def wait_http(url: str, timeout: float = 20) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if httpx.get(url, timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.05)
    raise RuntimeError(f"{url} did not answer")


def ask(port: int, command: bytes) -> str:
    """One inline command to a Redis on loopback; its whole (bulk) reply as text."""
    with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
        sock.sendall(command + b"\r\n")
        data = sock.recv(65536)
        if data.startswith(b"$"):
            size = int(data[1 : data.index(b"\r\n")])
            while len(data) < data.index(b"\r\n") + 2 + size:
                data += sock.recv(65536)
        return data.decode(errors="replace")


def start_redis(workdir: str, cluster: bool = False) -> tuple[subprocess.Popen[bytes], int]:
    port = free_port()
    binary = shutil.which("redis-server") or "redis-server"
    args = [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", ""]
    args += ["--appendonly", "no", "--dir", workdir]
    if cluster:
        args += ["--cluster-enabled", "yes", "--cluster-config-file", f"nodes-{port}.conf"]
        args += ["--cluster-port", str(free_port())]
    process = subprocess.Popen(pinned(args, 0), stdout=subprocess.DEVNULL)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError):
            if ask(port, b"PING").startswith("+PONG"):
                return process, port
        time.sleep(0.02)
    raise RuntimeError("redis-server did not answer")


def start_redis_cluster(workdir: str) -> tuple[list[subprocess.Popen[bytes]], list[int]]:
    """`MASTERS` cluster-enabled redis-servers, their slots split by `redis-cli`."""
    started = [start_redis(workdir, cluster=True) for _ in range(MASTERS)]
    ports = [port for _, port in started]
    cli = shutil.which("redis-cli") or "redis-cli"
    addresses = [f"127.0.0.1:{port}" for port in ports]
    create = [cli, "--cluster", "create", *addresses, "--cluster-replicas", "0", "--cluster-yes"]
    subprocess.run(create, check=True, capture_output=True, timeout=30)
    deadline = time.monotonic() + 20
    while not all("cluster_state:ok" in ask(port, b"CLUSTER INFO") for port in ports):
        if time.monotonic() > deadline:
            raise RuntimeError("the cluster did not reach cluster_state:ok")
        time.sleep(0.05)
    return [process for process, _ in started], ports


@dataclass
class Deployment:
    """Servers (and Redis, or a Redis Cluster) of one configuration, all on CPU 0."""

    processes: list[subprocess.Popen[bytes]]
    ports: list[int]
    redis: list[subprocess.Popen[bytes]]
    workdir: str
    redis_ports: list[int]

    def redis_used_kib(self) -> float:
        """Redis's own `used_memory` (every master's), in KiB (0 without Redis)."""
        total = 0
        for port in self.redis_ports:
            info = ask(port, b"INFO memory")
            line = next(x for x in info.splitlines() if x.startswith("used_memory:"))
            total += int(line.split(":")[1])
        return total / 1024

    @classmethod
    def start(cls, servers: int, with_redis: bool, cluster: bool = False) -> Deployment:
        workdir = tempfile.mkdtemp(prefix="bankit-bench-")
        env = {
            **os.environ,
            "BANKIT_LOG_LEVEL": "warning",
            "BANKIT_MAX_CONNECTIONS": "100000",
            "BANKIT_MAX_ROOMS": "100000",
            "BANKIT_STORE": "memory",  # one process: the memory bus, as docs/performance.md says
        }
        env.pop("REDIS_URL", None)
        redis: list[subprocess.Popen[bytes]] = []
        redis_ports: list[int] = []
        if cluster:
            redis, redis_ports = start_redis_cluster(workdir)
            hosts = ",".join(f"127.0.0.1:{port}" for port in redis_ports)
            env["REDIS_URL"] = f"redis+cluster://{hosts}"
        elif with_redis:
            process, port = start_redis(workdir)
            redis, redis_ports = [process], [port]
            env["REDIS_URL"] = f"redis://127.0.0.1:{port}/0"
        ports = [free_port() for _ in range(servers)]
        processes = []
        for port in ports:
            command = [sys.executable, "-m", "app", "--host", "127.0.0.1", "--port", str(port)]
            log = open(Path(workdir) / f"server-{port}.log", "wb")  # noqa: SIM115
            processes.append(
                subprocess.Popen(
                    pinned(command, 0), cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT
                )
            )
        deployment = cls(processes, ports, redis, workdir, redis_ports)
        try:
            for port in ports:
                wait_http(f"http://127.0.0.1:{port}/readyz")
        except RuntimeError:  # a loaded machine: stop what was started, leave nothing behind
            deployment.stop()
            raise
        return deployment

    def cpu(self) -> tuple[float, float]:
        app = sum(cpu_seconds(p.pid) for p in self.processes)
        return app, sum(cpu_seconds(r.pid) for r in self.redis)

    def stop(self) -> None:
        for process in [*self.processes, *self.redis]:
            process.send_signal(signal.SIGKILL)
            process.wait(10)
        if os.environ.get("BENCH_KEEP_LOGS"):
            print(f"       logs kept in {self.workdir}", flush=True)
        else:
            shutil.rmtree(self.workdir, ignore_errors=True)


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def run_step(config: str, rooms: int, warmup: float, seconds: float) -> dict[str, Any]:
    servers, with_redis = CONFIGS[config]
    if rooms * load.SOCKETS / servers > FD_LIMIT:
        return {"rooms": rooms, "skipped": f"{rooms * load.SOCKETS} sockets > the fd limit"}
    deployment = Deployment.start(servers, with_redis, cluster=config == "redis-cluster")
    try:
        pipes, procs = load.start_workers(
            deployment.ports, rooms, SOCKETS_PER_WORKER, warmup, seconds
        )
        time.sleep(warmup)
        app0, redis0 = deployment.cpu()
        gen0 = sum(cpu_seconds(proc.pid) for proc in procs)
        time.sleep(seconds)
        app1, redis1 = deployment.cpu()
        gen1 = sum(cpu_seconds(proc.pid) for proc in procs)
        results = [pipe.recv() for pipe in pipes]
        for proc in procs:
            proc.join(30)
        latencies = [x for r in results for x in r["latencies"]]
        actions = sum(r["actions"] for r in results)
        errors = sum(r["error_count"] for r in results)
        samples = [e for r in results for e in r["errors"]][:3]
        p99 = percentile(latencies, 0.99)
        return {
            "rooms": rooms,
            "actions_per_s": actions / seconds,
            "p50": percentile(latencies, 0.50),
            "p99": p99,
            "max": max(latencies) if latencies else float("nan"),
            "errors": errors,
            "error_samples": samples,
            "cpu_us": (app1 - app0) / max(actions, 1) * 1e6,
            "redis_cpu_us": (redis1 - redis0) / max(actions, 1) * 1e6,
            "app_cpu_share": (app1 - app0) / seconds,
            "redis_cpu_share": (redis1 - redis0) / seconds,
            "loadgen_cpu_share": (gen1 - gen0) / seconds,
            "ok": errors == 0 and p99 <= 100 and actions >= 0.9 * rooms * seconds / load.PERIOD,
        }
    finally:
        deployment.stop()


def memory(config: str) -> dict[str, float]:
    """KiB per room (500, no sockets; the server's and Redis's) and per idle socket
    (2,000 spectators of one room), on a fresh server."""
    _, with_redis = CONFIGS[config]
    deployment = Deployment.start(1, with_redis, cluster=config == "redis-cluster")
    try:
        pid, base = deployment.processes[0].pid, f"http://127.0.0.1:{deployment.ports[0]}"
        code = httpx.post(f"{base}/api/rooms", json={"game": "bank"}).json()["code"]
        time.sleep(1)
        before, redis_before = rss_kib(pid), deployment.redis_used_kib()
        with httpx.Client() as http:
            for _ in range(500):
                http.post(f"{base}/api/rooms", json={"game": "bank"})
        time.sleep(1)
        per_room = (rss_kib(pid) - before) / 500
        redis_per_room = (deployment.redis_used_kib() - redis_before) / 500
        before = rss_kib(pid)
        context = multiprocessing.get_context("fork")
        mine, theirs = context.Pipe()
        proc = context.Process(target=_idle_sockets, args=(theirs, deployment.ports[0], code, 2000))
        proc.start()
        mine.recv()
        time.sleep(2)
        per_socket = (rss_kib(pid) - before) / 2000
        mine.send("bye")
        proc.join(30)
        return {"socket_kib": per_socket, "room_kib": per_room, "redis_room_kib": redis_per_room}
    finally:
        deployment.stop()


def _idle_sockets(pipe: Any, port: int, code: str, count: int) -> None:
    import asyncio

    import uvloop

    from bench.wsclient import WsClient

    async def main() -> None:
        loop = asyncio.get_running_loop()
        clients = []
        for _ in range(count):
            _, client = await loop.create_connection(
                lambda: WsClient(f"/ws/rooms/{code}", port, lambda _: None), "127.0.0.1", port
            )
            await client.open
            clients.append(client)
        pipe.send("ready")
        await loop.run_in_executor(None, pipe.recv)
        for client in clients:
            client.close()

    uvloop.run(main())


def main() -> None:
    parser = argparse.ArgumentParser(
        prog="python -m bench.cluster",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--configs", default="memory,redis,redis3")
    # The steps, with 300 and 400 added: the Redis configurations end between.
    parser.add_argument("--rooms", default="50,200,300,400,500,750,1000,1500,2000")
    parser.add_argument("--seconds", type=float, default=15)
    parser.add_argument("--warmup", type=float, default=4)
    parser.add_argument("--no-memory", action="store_true")
    args = parser.parse_args()
    if (os.cpu_count() or 1) >= 2:
        os.sched_setaffinity(0, {1})  # the load generator (and its workers) on CPU 1
    summary = []
    for config in args.configs.split(","):
        print(
            f"\n== {config}: {CONFIGS[config][0]} process(es), "
            f"{'Redis' if CONFIGS[config][1] else 'memory'} bus"
            f"{f' on a {MASTERS}-master Redis Cluster' if config == 'redis-cluster' else ''} ==",
            flush=True,
        )
        print(
            f"{'rooms':>6} {'act/s':>7} {'p50 ms':>7} {'p99 ms':>7} {'max ms':>7} {'errors':>6} "
            f"{'app µs/act':>10} {'redis µs/act':>12} {'CPU0 app+redis':>14} {'CPU1 load':>9}",
            flush=True,
        )
        steps = []
        for rooms in (int(r) for r in args.rooms.split(",")):
            step = run_step(config, rooms, args.warmup, args.seconds)
            steps.append(step)
            if "skipped" in step:
                print(f"{rooms:>6} skipped: {step['skipped']}", flush=True)
                break
            print(
                f"{rooms:>6} {step['actions_per_s']:>7.0f} {step['p50']:>7.1f} {step['p99']:>7.1f} "
                f"{step['max']:>7.0f} {step['errors']:>6} {step['cpu_us']:>10.0f} "
                f"{step['redis_cpu_us']:>12.0f} "
                f"{step['app_cpu_share']:>8.0%}+{step['redis_cpu_share']:<4.0%} "
                f"{step['loadgen_cpu_share']:>9.0%}"
                + ("" if step["ok"] else "  <- over the limit"),
                flush=True,
            )
            for sample in step["error_samples"]:
                print(f"       e.g. {sample}", flush=True)
            if not step["ok"]:
                break
        passing = [s for s in steps if s.get("ok")]
        capacity = max((s["rooms"] for s in passing), default=0)
        at_capacity = next((s for s in passing if s["rooms"] == capacity), None)
        at_50 = next((s for s in steps if s["rooms"] == 50 and "p99" in s), None)
        mem = {} if args.no_memory else memory(config)
        summary.append((config, capacity, at_capacity, at_50, mem))
    print("\n== summary (capacity = most rooms with p99 <= 100 ms, no errors) ==")
    print(
        f"{'system':<24} {'capacity':>8} {'app µs/action':>13} {'p99 @50 rooms':>13} "
        f"{'KiB/idle socket':>15} {'KiB/room':>8} {'Redis KiB/room':>14}"
    )
    names = {
        "memory": "1 process, memory",
        "redis": "1 process, Redis",
        "redis3": "3 processes, Redis",
        "redis-cluster": "3 processes, Cluster x3",
    }
    for config, capacity, at_capacity, at_50, mem in summary:
        cpu = f"{at_capacity['cpu_us']:.0f}" if at_capacity else "-"
        p99 = f"{at_50['p99']:.1f} ms" if at_50 else "-"
        sock = f"{mem['socket_kib']:.1f}" if mem else "-"
        room = f"{mem['room_kib']:.1f}" if mem else "-"
        in_redis = f"{mem['redis_room_kib']:.1f}" if mem and CONFIGS[config][1] else "-"
        print(
            f"{names[config]:<24} {capacity:>8} {cpu:>13} {p99:>13} {sock:>15} {room:>8} "
            f"{in_redis:>14}"
        )


if __name__ == "__main__":
    main()
