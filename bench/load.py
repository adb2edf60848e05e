"""The load of DESIGN.md's performance targets, played by one load-generator process.

Each room: a banker, 8 players and 2 spectators (11 sockets), 2 actions a second.
An action is a banker's roll or a player's BANK (per round: three safe rolls, one
BANK, then a 7 that ends the round). Fan-out latency of an action = from its send to
the moment the LAST of the room's 11 sockets has the state with the action's seq
(the seq comes from the action's ack). Used by bench/cluster.py, which starts the
servers, runs one or more of these workers (each under 20,000 sockets: the file
limit here), and prints the table.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import random
import time
from dataclasses import dataclass, field
from typing import Any

import httpx
import orjson

from bench.wsclient import WsClient, tail_seq

PLAYERS, SPECTATORS = 8, 2
SOCKETS = 1 + PLAYERS + SPECTATORS
PERIOD = 0.5  # seconds between a room's actions: 2 a second
ROUND = ("roll", "roll", "roll", "bank", "seven")
# bench/compare.py's game (issue 12): three safe rolls, six players BANK, a 7 ends the
# round: 60 % of actions are players' BANKs, and each round grows `rounds_log`.
GAME_ROUND = ("roll", "roll", "roll", *("bank",) * 6, "seven")
RANDOM = ("random",)  # not a fixed round: `RandomMix` picks each action
PLANS = {"cluster": ROUND, "game": GAME_ROUND, "random": RANDOM}
BANK_SHARE = 0.6  # the random mix: 60 % players' BANKs, 40 % rolls (as the issue's harness)
START_SEQ = 1 + PLAYERS + 1  # create, the joins, start
# bankit's compact JSON, and json.dumps's default spacing (bench/naive.py)
STATE_HEADS = (b'{"type":"state"', b'{"type":"welcom', b'{"type": "state"', b'{"type": "welco')
PATCH_HEAD = b'{"type":"patch","seq":'  # the states-as-patches extension (bankit)
DICE = {0: b"[1,2]", 1: b"[2,3]", 2: b"[4,5]"}


@dataclass
class Stats:
    latencies: list[float] = field(default_factory=list)  # ms, in the measured window
    actions: int = 0  # acked in the measured window
    errors: list[str] = field(default_factory=list)
    measuring: bool = False
    state_bytes: list[int] = field(default_factory=list)  # the banker's states, in the window


class RandomMix:
    """A random valid game: each action a fair roll, or (BANK_SHARE of the time, when a
    round is live) a BANK by a random player who has not banked in it. It follows the
    rules as far as validity needs: a round is live after its first roll and ends with
    a 7 after the three safe rolls, or when every player has banked."""

    def __init__(self, seed: str) -> None:
        self.rng = random.Random(seed)
        self.rolls = 0
        self.banked: set[int] = set()

    def next(self) -> tuple[int | None, bytes]:
        """(the BANKing player's index, or None for the banker's roll; the roll's dice)."""
        rng = self.rng
        waiting = [n for n in range(PLAYERS) if n not in self.banked]
        if self.rolls and waiting and rng.random() < BANK_SHARE:
            player = rng.choice(waiting)
            self.banked.add(player)
            if len(self.banked) == PLAYERS:
                self.rolls, self.banked = 0, set()
            return player, b""
        dice = (rng.randint(1, 6), rng.randint(1, 6))
        self.rolls += 1
        if self.rolls > 3 and sum(dice) == 7:
            self.rolls, self.banked = 0, set()
        return None, b"[%d,%d]" % dice


class LoadRoom:
    """One table: its sockets, what each has seen, and the actions in flight."""

    def __init__(
        self,
        code: str,
        stats: Stats,
        plan: tuple[str, ...] = ROUND,
        acks: bool = True,
        patches: bool = False,
    ) -> None:
        self.code = code
        self.patches = patches  # every socket asks for states as patches (as the pages do)
        self.stats = stats
        self.plan = plan
        self.acks = acks  # False: a server that sends none (bench/naive.py); seqs are counted
        self.expected = START_SEQ  # without acks: the seq of the last action sent
        self.sockets: list[WsClient] = []
        self.seen = [0] * SOCKETS
        self.counts: dict[int, int] = {}
        self.complete: dict[int, float] = {}  # seq -> when the last socket had it
        self.sent_at: dict[str, float] = {}  # action id -> send time
        self.acked: dict[int, float] = {}  # seq -> send time of its action
        self.next_id = 0
        self.steps = 0  # actions sent so far (the game goes on from there)
        self.player_ids: list[str] = []
        self.mix = RandomMix(code) if plan == RANDOM else None

    def receiver(self, index: int) -> Any:
        def on_text(payload: bytes) -> None:
            head = payload[:16]
            if head.startswith(STATE_HEADS):
                if index == 0 and self.stats.measuring:
                    self.stats.state_bytes.append(len(payload))
                self.on_state(index, tail_seq(payload))
            elif head.startswith(PATCH_HEAD[:16]):  # its seq leads: no need to apply it here
                if index == 0 and self.stats.measuring:
                    self.stats.state_bytes.append(len(payload))
                at = len(PATCH_HEAD)
                self.on_state(index, int(payload[at : payload.index(b",", at)]))
            elif head.startswith(b'{"type":"ack"'):
                message = orjson.loads(payload)
                sent = self.sent_at.pop(message["id"], None)
                if sent is not None:
                    self.acked[message["seq"]] = sent
                    self.finish(message["seq"])
            elif head.startswith((b'{"type":"error"', b'{"type": "error"')):
                self.stats.errors.append(payload.decode()[:200])

        return on_text

    def on_state(self, index: int, seq: int) -> None:
        before = self.seen[index]
        if seq <= before:
            return
        self.seen[index] = seq
        now = time.perf_counter()
        for s in range(before + 1, seq + 1):
            count = self.counts.get(s, 0) + 1
            if count == SOCKETS:
                self.counts.pop(s, None)
                self.complete[s] = now
                self.finish(s)
            else:
                self.counts[s] = count

    def finish(self, seq: int) -> None:
        if seq in self.complete and seq in self.acked:
            latency = self.complete.pop(seq) - self.acked.pop(seq)
            if self.stats.measuring:
                self.stats.latencies.append(latency * 1000)
                self.stats.actions += 1

    async def fast_forward(self, actions: int, timeout: float = 300) -> None:
        """Play `actions` of the game as fast as the server takes them, one at a time
        (unmeasured): the window then sees a game that is well under way."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        for _ in range(actions):
            self.act(self.steps)
            self.steps += 1
            while (self.sent_at if self.acks else self.seen[0] < self.expected) and not any(
                s.lost for s in self.sockets
            ):
                if loop.time() > deadline:
                    raise RuntimeError(f"room {self.code}: fast-forward timed out")
                await asyncio.sleep(0.002)
        self.acked.clear()
        self.complete.clear()

    def act(self, step: int) -> None:
        plan = self.plan
        at = step % len(plan)
        kind = plan[at]
        self.next_id += 1
        action_id = f"a{self.next_id}"
        if self.mix is not None:
            player, dice = self.mix.next()
            if player is None:
                sender = self.sockets[0]
                payload = b'{"type":"roll","dice":%s,"id":"%s"}' % (dice, action_id.encode())
            else:
                sender = self.sockets[1 + player]
                payload = b'{"type":"bank","id":"%s"}' % action_id.encode()
        elif kind == "bank":
            nth = plan[:at].count("bank")  # distinct players within a round
            sender = self.sockets[1 + (step // len(plan) + nth) % PLAYERS]
            payload = b'{"type":"bank","id":"%s"}' % action_id.encode()
        else:
            sender = self.sockets[0]
            dice = b"[3,4]" if kind == "seven" else DICE[at]
            payload = b'{"type":"roll","dice":%s,"id":"%s"}' % (dice, action_id.encode())
        now = time.perf_counter()
        if self.acks:
            self.sent_at[action_id] = now
        else:  # every action is valid, so it is the room's next event
            self.expected += 1
            self.acked[self.expected] = now
        sender.send(payload)


async def make_room(
    http: httpx.AsyncClient, bases: list[str], index: int, rounds: int = 100
) -> dict[str, Any]:
    base = bases[index % len(bases)]
    body = {"game": "bank", "rounds": rounds}
    created = (await http.post(f"{base}/api/rooms", json=body)).json()
    code = created["code"]
    tokens = [created["banker_token"]]
    for n in range(PLAYERS):
        joiner = bases[(index + n + 1) % len(bases)]
        reply = await http.post(f"{joiner}/api/rooms/{code}/players", json={"name": f"Player {n}"})
        reply.raise_for_status()
        tokens.append(reply.json()["token"])
    return {"code": code, "tokens": tokens}


async def connect_room(room: LoadRoom, tokens: list[str], ports: list[int], index: int) -> None:
    loop = asyncio.get_running_loop()
    for slot in range(SOCKETS):
        port = ports[(index + slot) % len(ports)]  # a room's sockets spread over the processes
        token = tokens[slot] if slot < len(tokens) else ""
        query = "&".join(
            (*(["patches=1"] if room.patches else []), *([f"token={token}"] if token else []))
        )
        path = f"/ws/rooms/{room.code}" + (f"?{query}" if query else "")
        receiver = room.receiver(slot)
        _, client = await loop.create_connection(
            lambda: WsClient(path, port, receiver),
            "127.0.0.1",
            port,  # noqa: B023 - awaited here
        )
        room.sockets.append(client)
        await asyncio.wait_for(client.open, 30)


async def started(room: LoadRoom, timeout: float = 60) -> None:
    """Until every socket of the room has the state after `start` (a deadline, no sleep)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while min(room.seen) < START_SEQ:
        if loop.time() > deadline:
            raise RuntimeError(f"room {room.code} did not start: seen {room.seen}")
        await asyncio.sleep(0.02)


async def setup(
    ports: list[int],
    count: int,
    first: int,
    stats: Stats,
    plan: tuple[str, ...] = ROUND,
    acks: bool = True,
    rounds: int = 100,
    patches: bool = False,
    skip: int = 0,
) -> list[LoadRoom]:
    """The rooms, seated and started; `skip`: actions each plays fast before the load."""
    bases = [f"http://127.0.0.1:{port}" for port in ports]
    limits = httpx.Limits(max_connections=16, max_keepalive_connections=16)
    async with httpx.AsyncClient(limits=limits, timeout=60) as http:
        gate = asyncio.Semaphore(16)

        async def one(index: int) -> LoadRoom:
            async with gate:
                made = await make_room(http, bases, index, rounds)
                room = LoadRoom(made["code"], stats, plan, acks, patches)
                await connect_room(room, made["tokens"], ports, index)
                room.sockets[0].send(b'{"type":"start","id":"start"}')
                if not acks or skip:
                    await started(room)
                return room

        rooms = list(await asyncio.gather(*(one(first + n) for n in range(count))))
    await asyncio.gather(*(room.fast_forward(skip) for room in rooms))
    return rooms


async def play(
    rooms: list[LoadRoom], warmup: float, seconds: float, stats: Stats, seed: int
) -> None:
    rng = random.Random(seed)
    loop = asyncio.get_running_loop()
    start = loop.time()

    async def table(room: LoadRoom) -> None:
        await asyncio.sleep(rng.uniform(0, PERIOD))
        due = loop.time()
        while loop.time() < start + warmup + seconds:
            room.act(room.steps)
            room.steps += 1
            due += PERIOD
            await asyncio.sleep(max(0.0, due - loop.time()))

    async def window() -> None:
        await asyncio.sleep(warmup)
        stats.measuring = True
        await asyncio.sleep(seconds)
        stats.measuring = False

    await asyncio.gather(window(), *(table(room) for room in rooms))
    await asyncio.sleep(1.0)  # answers still on their way
    lost = sum(len(room.sent_at) for room in rooms)
    if lost:
        stats.errors.append(f"{lost} actions never acknowledged")
    undelivered = sum(len(room.acked) for room in rooms if not room.acks)
    if undelivered:
        stats.errors.append(f"{undelivered} actions never reached all sockets")
    closed = sum(1 for room in rooms for s in room.sockets if s.lost)
    if closed:
        stats.errors.append(f"{closed} sockets closed by the server")


def worker(
    pipe: Any,
    ports: list[int],
    count: int,
    first: int,
    warmup: float,
    seconds: float,
    plan: str = "cluster",
    acks: bool = True,
    rounds: int = 100,
    patches: bool = False,
    skip: int = 0,
) -> None:
    """One load-generator process: set up, say ready, wait for go, play, report.

    `plan` names the round played (PLANS); `acks=False` for a server that sends none.
    """
    import uvloop

    async def main() -> None:
        stats = Stats()
        try:
            rooms = await setup(
                ports, count, first, stats, PLANS[plan], acks, rounds, patches, skip
            )
        except Exception as error:  # noqa: BLE001 - report, do not hang the coordinator
            pipe.send({"error": f"setup failed: {error!r}"})
            return
        pipe.send({"ready": len(rooms) * SOCKETS})
        await asyncio.get_running_loop().run_in_executor(None, pipe.recv)
        await play(rooms, warmup, seconds, stats, first)
        pipe.send(
            {
                "latencies": stats.latencies,
                "actions": stats.actions,
                "errors": stats.errors[:20],
                "error_count": len(stats.errors),
                "state_bytes": stats.state_bytes,
            }
        )
        for room in rooms:
            for client in room.sockets:
                client.close()

    uvloop.run(main())


def start_workers(
    ports: list[int], rooms: int, per_worker: int, warmup: float, seconds: float, *options: Any
) -> tuple[list[Any], list[Any]]:
    """Fork enough `worker` processes for `rooms` (at most `per_worker` sockets each), wait
    until every one has its rooms ready, then start them all at once: (pipes, processes)."""
    workers = max(1, -(-rooms * SOCKETS // per_worker))
    share = [rooms // workers + (1 if n < rooms % workers else 0) for n in range(workers)]
    context = multiprocessing.get_context("fork")
    pipes, procs, first = [], [], 0
    for count in share:
        mine, theirs = context.Pipe()
        proc = context.Process(
            target=worker, args=(theirs, ports, count, first, warmup, seconds, *options)
        )
        proc.daemon = True  # ended with the benchmark, whatever happens
        proc.start()
        pipes.append(mine)
        procs.append(proc)
        first += count
    for pipe in pipes:
        if not pipe.poll(600):
            raise RuntimeError("a load worker did not get ready")
        message = pipe.recv()
        if "error" in message:
            raise RuntimeError(message["error"])
    for pipe in pipes:
        pipe.send("go")
    return pipes, procs
