"""A long, realistic mix against one bankit process (default config), a line a minute.

    python -m bench.soak [--minutes 30] [--tables 120] [--drop-every 4]

Starts `python -m app` (one process, SQLite store in a fresh temp data dir) pinned
to CPU 0 and drives it from CPU 1: `--tables` tables at once, each a banker, 8
players and 0-4 spectators, 2 actions a second (three safe rolls, six BANKs, a 7).
Games are short (2-5 rounds): when one finishes its sockets close and a new room is
made, so rooms keep starting and finishing. Every few seconds a table's player phone
drops (the socket is closed) and comes back 1-4 s later with the same token; while
it is away the banker banks for that player. Spectators come and go. Fan-out latency
of an action = from its send to the moment every socket that was open when it was
sent has the state with its seq (the seq comes from the ack). Every minute one line:
minute, server RSS, open sockets and rooms (GET /metrics), fan-out p99, errors
(error messages, sockets closed by the server, actions never acknowledged), and the
p99 of the event loop's lag in that minute (the bucket of /metrics'
`bankit_event_loop_lag_seconds` that holds it; the whole histogram at the end). Loopback
only; every loop ends at the deadline; the server is stopped at the end.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import orjson

from bench import lag
from bench.cluster import ROOT, free_port, percentile, pinned, rss_kib, wait_http
from bench.load import DICE, GAME_ROUND, PERIOD, PLAYERS, STATE_HEADS
from bench.wsclient import WsClient, tail_seq

MAX_SPECTATORS = 4


@dataclass
class Minute:
    latencies: list[float] = field(default_factory=list)
    errors: int = 0
    samples: list[str] = field(default_factory=list)
    games: int = 0
    drops: int = 0

    def error(self, text: str) -> None:
        self.errors += 1
        if len(self.samples) < 3:
            self.samples.append(text[:160])


def _retrieved(future: asyncio.Future[None]) -> None:
    """A handshake we gave up on may fail: that is no news (and no asyncio warning)."""
    if not future.cancelled():
        future.exception()


class Sock:
    """One phone's socket: who it is, and whether we closed it ourselves."""

    def __init__(self, table: Table, slot: str, token: str) -> None:
        self.table, self.slot, self.token = table, slot, token
        self.client: WsClient | None = None
        self.ours = False  # closed by us: its loss is no error

    async def open(self, port: int) -> None:
        path = f"/ws/rooms/{self.table.code}" + (f"?token={self.token}" if self.token else "")
        loop = asyncio.get_running_loop()
        _, client = await loop.create_connection(
            lambda: WsClient(path, port, self.on_text), "127.0.0.1", port
        )
        self.client = client
        client.open.add_done_callback(_retrieved)
        if self.ours or self.table.done:  # closed, or the game ended, while connecting
            client.close()
            return
        await asyncio.wait_for(client.open, 30)

    def on_text(self, payload: bytes) -> None:
        head = payload[:16]
        if head.startswith(STATE_HEADS):
            self.table.seen(self, tail_seq(payload))
        elif head.startswith(b'{"type":"ack"'):
            message = orjson.loads(payload)
            self.table.acked(message["id"], message["seq"])
        elif head.startswith(b'{"type":"error"'):
            self.table.minute().error(payload.decode())

    def close(self) -> None:
        self.ours = True
        if self.client is not None:
            self.client.close()

    @property
    def up(self) -> bool:
        return self.client is not None and self.client.open.done() and not self.client.lost


class Table:
    """One game from creation to its last roll, with phones dropping and spectators."""

    def __init__(self, soak: Soak, code: str, banker: str, players: list[tuple[str, str]]):
        self.soak, self.code = soak, code
        self.banker = Sock(self, "banker", banker)
        self.player_ids = [pid for pid, _ in players]
        self.players = [Sock(self, pid, token) for pid, token in players]
        self.spectators: list[Sock] = []
        self.sent: dict[str, tuple[float, set[Sock], Sock]] = {}  # id -> when, who, sender
        self.waiting: dict[int, tuple[float, set[Sock]]] = {}  # seq -> the same, once acked
        self.last_seq: dict[Sock, int] = {}
        self.next_id = 0
        self.done = False

    def minute(self) -> Minute:
        return self.soak.current

    def sockets(self) -> list[Sock]:
        return [self.banker, *self.players, *self.spectators]

    def seen(self, sock: Sock, seq: int) -> None:
        self.last_seq[sock] = max(seq, self.last_seq.get(sock, 0))
        for s, (_, must) in list(self.waiting.items()):
            if s <= seq:
                must.discard(sock)
                self.check(s)

    def acked(self, action_id: str, seq: int) -> None:
        entry = self.sent.pop(action_id, None)
        if entry is None:
            return
        when, must, _ = entry
        must = {s for s in must if self.last_seq.get(s, 0) < seq}
        self.waiting[seq] = (when, must)
        self.check(seq)

    def check(self, seq: int) -> None:
        when, must = self.waiting[seq]
        if not any(s.up for s in must):  # everyone still open has it
            del self.waiting[seq]
            self.minute().latencies.append((time.perf_counter() - when) * 1000)

    def forget(self, sock: Sock) -> None:
        """A socket we closed: it need not see anything more, nor answer what it sent."""
        for action_id in [a for a, (_, _, sender) in self.sent.items() if sender is sock]:
            del self.sent[action_id]
        for _, must, _ in self.sent.values():
            must.discard(sock)
        for seq in list(self.waiting):
            self.waiting[seq][1].discard(sock)
            self.check(seq)

    def act(self, step: int) -> None:
        at = step % len(GAME_ROUND)
        self.next_id += 1
        action_id = f"a{self.next_id}"
        if GAME_ROUND[at] == "bank":
            nth = GAME_ROUND[:at].count("bank")
            index = (step // len(GAME_ROUND) + nth) % PLAYERS
            player = self.players[index]
            if player.up:
                sender, payload = player, b'{"type":"bank","id":"%s"}' % action_id.encode()
            else:  # the phone is away: the banker banks for that player
                sender = self.banker
                payload = b'{"type":"bank","player_id":"%s","id":"%s"}' % (
                    self.player_ids[index].encode(),
                    action_id.encode(),
                )
        else:
            dice = b"[3,4]" if GAME_ROUND[at] == "seven" else DICE[at]
            sender = self.banker
            payload = b'{"type":"roll","dice":%s,"id":"%s"}' % (dice, action_id.encode())
        self.sent[action_id] = (time.perf_counter(), {s for s in self.sockets() if s.up}, sender)
        if sender.client is not None:
            sender.client.send(payload)

    def lost_sockets(self) -> list[Sock]:
        return [s for s in self.sockets() if s.client is not None and s.client.lost and not s.ours]


class Soak:
    def __init__(self, port: int, args: argparse.Namespace) -> None:
        self.port, self.args = port, args
        self.base = f"http://127.0.0.1:{port}"
        self.current = Minute()
        self.rng = random.Random(12)
        self.tasks: set[asyncio.Task[None]] = set()

    async def new_table(self, http: httpx.AsyncClient, rounds: int) -> Table:
        created = (await http.post("/api/rooms", json={"game": "bank", "rounds": rounds})).json()
        code = created["code"]
        players = []
        for n in range(PLAYERS):
            reply = await http.post(f"/api/rooms/{code}/players", json={"name": f"P{n}"})
            reply.raise_for_status()
            players.append((reply.json()["player_id"], reply.json()["token"]))
        table = Table(self, code, created["banker_token"], players)
        for sock in table.sockets():
            await sock.open(self.port)
        return table

    async def drop(self, table: Table, sock: Sock, away: float) -> None:
        """A phone goes away and comes back with the same token."""
        sock.close()
        table.forget(sock)
        self.current.drops += 1
        await asyncio.sleep(away)
        if table.done:
            return
        again = Sock(table, sock.slot, sock.token)
        table.players[table.players.index(sock)] = again
        try:
            await again.open(self.port)
        except (TimeoutError, OSError, ConnectionError) as error:
            if not (again.ours or table.done):  # not our own close at the game's end
                self.current.error(f"reconnect failed: {error!r}")

    async def spectate(self, table: Table) -> None:
        if table.done:
            return
        if len(table.spectators) < MAX_SPECTATORS and self.rng.random() < 0.6:
            sock = Sock(table, "spectator", "")
            table.spectators.append(sock)
            try:
                await sock.open(self.port)
            except (TimeoutError, OSError, ConnectionError) as error:
                if not (sock.ours or table.done):
                    self.current.error(f"spectator failed: {error!r}")
        elif table.spectators:
            sock = table.spectators.pop(self.rng.randrange(len(table.spectators)))
            sock.close()
            table.forget(sock)

    def spawn(self, coroutine: Any) -> None:
        task = asyncio.get_running_loop().create_task(coroutine)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def seat(self, http: httpx.AsyncClient, deadline: float, first: bool) -> None:
        """One seat of the hall: games one after another until the deadline."""
        loop = asyncio.get_running_loop()
        rng = self.rng
        if first:
            await asyncio.sleep(rng.uniform(0, 10))  # tables do not all start together
        drop_chance = PERIOD / self.args.drop_every
        while loop.time() < deadline:
            rounds = rng.randint(2, 5)
            try:
                table = await self.new_table(http, rounds)
            except (TimeoutError, httpx.HTTPError, OSError, ConnectionError) as error:
                self.current.error(f"new table failed: {error!r}")
                await asyncio.sleep(1)
                continue
            table.banker.client.send(b'{"type":"start","id":"start"}')  # type: ignore[union-attr]
            await asyncio.sleep(0.5)
            due = loop.time()
            for step in range(rounds * len(GAME_ROUND)):
                if loop.time() >= deadline:
                    break
                table.act(step)
                if rng.random() < drop_chance:
                    sock = rng.choice(table.players)
                    if sock.up:
                        self.spawn(self.drop(table, sock, rng.uniform(1, 4)))
                if rng.random() < 0.1:
                    self.spawn(self.spectate(table))
                due += PERIOD
                await asyncio.sleep(max(0.0, due - loop.time()))
            await asyncio.sleep(1.0)  # the last answers on their way
            for sock in table.lost_sockets():
                self.current.error(f"socket {sock.slot} closed by the server")
            if table.sent:
                self.current.error(f"{len(table.sent)} actions never acknowledged")
            table.done = True
            for sock in table.sockets():
                sock.close()
            self.current.games += 1

    async def run(self, server_pid: int) -> None:
        loop = asyncio.get_running_loop()
        start = loop.time()
        deadline = start + self.args.minutes * 60
        print(
            f"{'minute':>6} {'RSS MB':>7} {'sockets':>7} {'rooms':>6} {'p99 ms':>7} "
            f"{'errors':>6} {'actions':>7} {'games':>5} {'drops':>5} {'lag p99 ms':>10}",
            flush=True,
        )
        first_lag: lag.Histogram = {}
        last_lag: lag.Histogram = {}
        limits = httpx.Limits(max_connections=16, max_keepalive_connections=16)
        async with httpx.AsyncClient(base_url=self.base, limits=limits, timeout=30) as http:
            seats = [
                loop.create_task(self.seat(http, deadline, True)) for _ in range(self.args.tables)
            ]
            for minute in range(1, int(self.args.minutes) + 1):
                await asyncio.sleep(max(0.0, start + minute * 60 - loop.time()))
                done, self.current = self.current, Minute()
                gauges, minute_lag = await self.gauges(http)
                window = lag.window(last_lag, minute_lag)
                first_lag, last_lag = first_lag or minute_lag, minute_lag
                print(
                    f"{minute:>6} {rss_kib(server_pid) / 1024:>7.1f} "
                    f"{gauges.get('bankit_connections', -1):>7.0f} "
                    f"{gauges.get('bankit_rooms_owned', -1):>6.0f} "
                    f"{percentile(done.latencies, 0.99):>7.1f} {done.errors:>6} "
                    f"{len(done.latencies):>7} {done.games:>5} {done.drops:>5} "
                    f"{lag.quantile(window, 0.99) * 1000:>10g}",
                    flush=True,
                )
                for sample in done.samples:
                    print(f"{'':>8}e.g. {sample}", flush=True)
            await asyncio.gather(*seats)
            for task in list(self.tasks):
                task.cancel()
            print(f"event loop lag after minute 1: {lag.line(lag.window(first_lag, last_lag))}")

    async def gauges(self, http: httpx.AsyncClient) -> tuple[dict[str, float], lag.Histogram]:
        """Sockets and rooms, and the loop lag's histogram so far."""
        try:
            text = (await http.get("/metrics")).text
        except httpx.HTTPError as error:
            self.current.error(f"/metrics failed: {error!r}")
            return {}, {}
        values = {}
        for line in text.splitlines():
            name, _, value = line.partition(" ")
            if name in ("bankit_connections", "bankit_rooms_owned"):
                values[name] = float(value)
        return values, lag.parse(text)


def main() -> None:
    parser = argparse.ArgumentParser(
        prog="python -m bench.soak",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--minutes", type=float, default=30)
    parser.add_argument("--tables", type=int, default=120, help="games at once")
    parser.add_argument(
        "--drop-every", type=float, default=4, help="seconds between a table's phone drops"
    )
    args = parser.parse_args()
    if not 1 <= args.minutes <= 24 * 60 or not 1 <= args.tables <= 1500:
        parser.error("--minutes 1..1440, --tables 1..1500")
    workdir = tempfile.mkdtemp(prefix="bankit-soak-")
    env = {
        **os.environ,
        "BANKIT_LOG_LEVEL": "warning",
        "BANKIT_DATA_DIR": str(Path(workdir) / "data"),
        "BANKIT_STORE": "sqlite",
    }
    env.pop("REDIS_URL", None)
    port = free_port()
    command = [sys.executable, "-m", "app", "--host", "127.0.0.1", "--port", str(port)]
    log = open(Path(workdir) / "server.log", "wb")  # noqa: SIM115 - lives with the process
    server = subprocess.Popen(
        pinned(command, 0), cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT
    )
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(f"stopped by {signum}"))
    try:
        wait_http(f"http://127.0.0.1:{port}/readyz")
        if (os.cpu_count() or 1) >= 2:
            os.sched_setaffinity(0, {1})
        print(
            f"bench.soak {time.strftime('%Y-%m-%d %H:%M')}: {args.minutes:g} min, "
            f"{args.tables} tables, a phone drops every ~{args.drop_every:g} s per table",
            flush=True,
        )
        import uvloop

        uvloop.run(Soak(port, args).run(server.pid))
    finally:
        server.send_signal(signal.SIGKILL)
        server.wait(10)
        log.close()
        if os.environ.get("BENCH_KEEP_LOGS"):
            print(f"server log kept in {workdir}")
        else:
            shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
