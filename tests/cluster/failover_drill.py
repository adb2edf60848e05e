"""The Redis failover drill: BANK games in play on two bankit processes behind Sentinel
while the primary is SIGKILLed again and again (tests/cluster/test_sentinel_failover.py
runs a few kills, `python -m bench.failover --kills 10` more, and prints a table).

Each room is played by one task that sends a command, waits for its one answer, retries
an `unavailable` with the same id, and goes on. At the end: every acknowledged command
is in the log exactly once (the log's roll/bank/start events are exactly the acked ones),
no send went unanswered, play resumed after each kill within the limit, every chain holds.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from tests.client import Client, Table
from tests.cluster.conftest import ENV, verify_chain
from tests.conftest import ServerProcess, start_server
from tests.redis_sentinel import FailoverGroup

ANSWER_SECONDS = 30.0  # the pending table answers within 20 s, whatever happens
DICE = ([1, 2], [3, 3], [2, 4], [5, 1])  # never a 7: rounds end when everyone banked
ROLLS = 20  # rolls before the banks
BETWEEN = 10  # commands acknowledged in every room between two kills
PACE = 0.02  # seconds between sends: a socket's rate limit (100/s) is for people, not loops


@dataclass
class Room:
    table: Table
    clients: dict[str, Client]  # "banker" and each player's name
    where: dict[str, tuple[str, str]]  # the same: (ws_url, token), to reconnect
    acked: dict[int, tuple[str, Any]] = field(default_factory=dict)  # seq -> (type, detail)
    unanswered: list[str] = field(default_factory=list)
    closed: list[str] = field(default_factory=list)  # sockets the server closed
    refused: dict[str, int] = field(default_factory=dict)
    answers: list[tuple[float, float]] = field(default_factory=list)  # (sent, answered)


@dataclass
class Drill:
    group: FailoverGroup
    servers: list[ServerProcess]
    rooms: list[Room]
    # Seconds from each kill until every room had an ack for a command sent after it.
    resumed: list[float] = field(default_factory=list)
    promotions: list[tuple[int, int]] = field(default_factory=list)
    _stop: asyncio.Event = field(default_factory=asyncio.Event)

    async def send(self, room: Room, who: str, kind: str, detail: Any, **command: Any) -> None:
        """One command to its final answer: retried with the same id while `unavailable`
        (and on a new socket if the server closed this one: a phone reconnects)."""
        command_id = f"{kind}-{time.monotonic_ns()}"
        sent = time.monotonic()
        while True:
            client = room.clients[who]
            await asyncio.sleep(PACE)
            try:
                answer = await client.command(timeout=ANSWER_SECONDS, id=command_id, **command)
            except ConnectionError:  # closed by the server: not a send on an open socket
                room.closed.append(f"{command_id}: {client.close_code}")
                await asyncio.sleep(0.5)
                with contextlib.suppress(Exception):
                    room.clients[who] = await Client.connect(
                        room.where[who][0], room.table.code, room.where[who][1]
                    )
                continue
            except TimeoutError:
                seen = [m for m in client.messages[-5:] if m.get("type") != "state"]
                room.unanswered.append(f"{command_id} after {time.monotonic() - sent:.1f} s {seen}")
                return
            if answer["type"] == "ack":
                room.acked[int(answer["seq"])] = (kind, detail)
                room.answers.append((sent, time.monotonic()))
                return
            code = answer.get("code", "?")
            room.refused[code] = room.refused.get(code, 0) + 1
            if code != "unavailable":
                return
            await asyncio.sleep(0.2)

    async def play(self, room: Room) -> None:
        names = [name for name in room.clients if name != "banker"]
        await self.send(room, "banker", "start", None, type="start")
        turn = 0
        while not self._stop.is_set():
            for step in range(ROLLS):  # long rounds: the game's 100 rounds outlast the drill
                dice = DICE[(turn + step) % len(DICE)]
                await self.send(room, "banker", "roll", dice, type="roll", dice=dice)
            turn += 1
            for name in names:  # everyone banks: the round ends, the next begins
                await self.send(room, name, "bank", name, type="bank")
                await self.send(room, "banker", "roll", DICE[0], type="roll", dice=DICE[0])

    async def kill(self) -> None:
        """Kill the primary mid-round; wait until every room has had an answer to a
        command sent after the kill (play resumed)."""
        await self._flowing(time.monotonic(), acks=BETWEEN)  # in play, mid-round
        old, new, killed = await asyncio.to_thread(self.group.kill_primary)
        self.promotions.append((old, new))
        await self._flowing(killed)
        self.resumed.append(max(self._first_after(room, killed) for room in self.rooms) - killed)

    async def _flowing(self, since: float, timeout: float = 30.0, acks: int = 1) -> None:
        """Until every room has had `acks` answers to commands sent since `since`."""
        deadline = time.monotonic() + timeout
        while any(self._acked_since(room, since) < acks for room in self.rooms):
            if time.monotonic() > deadline:
                stuck = [
                    f"{room.table.code}: answers {len(room.answers)}, unanswered "
                    f"{room.unanswered}, refused {room.refused}, closed {room.closed}"
                    for room in self.rooms
                ]
                raise AssertionError(f"play did not resume within {timeout} s: {stuck}")
            await asyncio.sleep(0.05)

    @staticmethod
    def _acked_since(room: Room, since: float) -> int:
        return sum(1 for sent, _ in room.answers if sent >= since)

    @staticmethod
    def _first_after(room: Room, since: float) -> float:
        return min(
            (answered for sent, answered in room.answers if sent >= since), default=float("inf")
        )

    async def run(self, kills: int) -> None:
        players = [asyncio.create_task(self.play(room)) for room in self.rooms]
        try:
            for _ in range(kills):
                await self.kill()
            await self._flowing(time.monotonic())  # one more answer everywhere after the last
        finally:
            self._stop.set()
            await asyncio.wait(players, timeout=ANSWER_SECONDS + 5)
            for task in players:
                task.cancel()

    def check(self) -> list[str]:
        """What failed (empty: every promise held)."""
        failed: list[str] = []
        for room in self.rooms:
            room.table.base_url = self.servers[1].base_url
            events = httpx.get(f"{room.table.base_url}/api/rooms/{room.table.code}/log").json()[
                "events"
            ]
            try:
                verify_chain(events)
            except AssertionError:
                failed.append(f"room {room.table.code}: the log's chain does not verify")
            played = {e["seq"]: e for e in events if e["type"] in ("start", "roll", "bank")}
            if set(played) != set(room.acked):
                lost = sorted(set(room.acked) - set(played))
                extra = sorted(set(played) - set(room.acked))
                failed.append(
                    f"room {room.table.code}: acked but not logged {lost}, logged unacked {extra}"
                )
            for seq, (kind, detail) in room.acked.items():
                event = played.get(seq)
                if event is not None and (
                    event["type"] != kind or (kind == "roll" and event["data"]["dice"] != detail)
                ):
                    failed.append(
                        f"room {room.table.code}: seq {seq} is {event['type']}, acked as {kind}"
                    )
            if room.unanswered:
                failed.append(f"room {room.table.code}: sends never answered: {room.unanswered}")
            if room.closed:  # reconnected and sent again; listed, not a broken promise
                print(f"room {room.table.code}: sockets the server closed: {room.closed}")
        return failed

    def table(self) -> str:
        acked = sum(len(room.acked) for room in self.rooms)
        refused = sum(room.refused.get("unavailable", 0) for room in self.rooms)
        lines = ["| kill | old primary → promoted | play resumed after |", "|---|---|---|"]
        for index, ((old, new), seconds) in enumerate(
            zip(self.promotions, self.resumed, strict=True), 1
        ):
            lines.append(f"| {index} | :{old} → :{new} | {seconds:.2f} s |")
        worst = max(self.resumed, default=0.0)
        lines.append("")
        lines.append(
            f"rooms {len(self.rooms)}, commands acked {acked}, `unavailable` answers"
            f" (then retried) {refused}, worst resume {worst:.2f} s"
        )
        return "\n".join(lines)


async def set_up(workdir: Path, rooms: int = 2, env: dict[str, str] | None = None) -> Drill:
    """The group, two servers and the rooms; whatever started is stopped if a step fails
    (a server that does not start on a loaded machine leaves no redis-server behind)."""
    group = await asyncio.to_thread(FailoverGroup, workdir)
    drill = Drill(group, [], [])
    try:
        full = {
            **ENV,
            "REDIS_URL": group.url,
            "BANKIT_REDIS_REPLICA_WAIT_SECONDS": "0.5",
            "BANKIT_REDIS_MIN_REPLICAS": "2",
            **(env or {}),
        }
        starts = await asyncio.gather(
            *(asyncio.to_thread(start_server, workdir, full) for _ in range(2)),
            return_exceptions=True,
        )
        drill.servers.extend(s for s in starts if not isinstance(s, BaseException))
        for failed in starts:
            if isinstance(failed, BaseException):
                raise failed
        servers = drill.servers
        for index in range(rooms):
            table = await asyncio.to_thread(Table, servers[index % 2].base_url, rounds=100)
            for name in ("Ann", "Bob"):
                await asyncio.to_thread(table.join, name)
            where = {"banker": (servers[0].ws_url, table.banker_token)}
            for i, name in enumerate(("Ann", "Bob")):
                where[name] = (servers[i % 2].ws_url, table.players[name][1])
            clients = {
                who: await Client.connect(url, table.code, token)
                for who, (url, token) in where.items()
            }
            drill.rooms.append(Room(table, clients, where))
    except BaseException:
        tear_down(drill)
        raise
    return drill


def tear_down(drill: Drill) -> None:
    for server in drill.servers:
        with contextlib.suppress(Exception):
            server.kill()
    drill.group.stop()
