"""The durable answer path: every command's answer is kept where the commit is.

Pub/sub is at most once: an answer published while the sender's subscriber is away
(a Redis restart, a killed pub/sub connection) is gone. So the COMMIT script itself
(app/bus/redis/wire.py) also XADDs each answer, `n` node, `k` key, `p` payload, to the
room's own stream `bankit:{CODE}:answers`, and publishes it to the node's channel: the
answer exists, and is sent, iff the commit happened, in the same atomic script.

Why the room's stream and not one per node (`bankit:node:{<node>}:answers`): on Redis
Cluster a script may touch the keys of one slot only, and the room's keys carry `{CODE}`.
A node stream would need a second call after the script, and a crash between the two
would lose answers. The price: a process reads the stream of each room it waits for,
only when it needs to (a break in its subscription, an answer overdue; see
app/api/pending.py), from a remembered last id per room, filtering its own entries.
The stream is capped (`MAXLEN ~ ANSWERS_KEPT`), expires with the room (its TTL), and
is deleted with it; streams of dead nodes' answers go away with their rooms.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from app.bus.base import Reply, ReplyHandler
from app.bus.redis.wire import key

ANSWERS_KEPT = 2000  # per room: minutes of play, seconds of a benchmark
PAGE = 500  # entries per XRANGE


def answer_args(replies: Sequence[Reply]) -> list[Any]:
    """The COMMIT script's trailing arguments: (node, key, payload) per answer."""
    args: list[Any] = []
    for reply in replies:
        args += [reply.node, reply.key, reply.payload]
    return args


def mine(reply: Any, node: str) -> tuple[list[tuple[str, bytes]], str | None]:
    """This node's (key, payload) pairs in an XRANGE reply, and the last entry id read."""
    found: list[tuple[str, bytes]] = []
    last: str | None = None
    for entry_id, fields in reply or ():
        last = entry_id.decode()
        values = dict(zip(fields[::2], fields[1::2], strict=True))
        if values.get(b"n", b"").decode() == node:
            found.append((values[b"k"].decode(), values[b"p"]))
    return found, last


async def read_answers(
    xrange: Callable[..., Awaitable[Any]], stream: str, node: str, after: str
) -> tuple[list[tuple[str, bytes]], str]:
    """Every answer for `node` in `stream` after id `after`, and the last id read."""
    found: list[tuple[str, bytes]] = []
    while True:
        reply = await xrange("XRANGE", stream, "(" + after, "+", "COUNT", PAGE)
        page, last = mine(reply, node)
        found += page
        if last is None or len(reply) < PAGE:
            return found, last or after
        after = last


CLOCK_MARGIN_MS = 2000  # answers are read from a bit before the command's stream id
AWAIT_SECONDS = 120.0  # how long after its last submit a room's answers are still sought


class Awaited:
    """Per room this process submitted to: where its reading of the answer stream is."""

    def __init__(self) -> None:
        self._rooms: dict[str, tuple[str, float]] = {}  # code -> (read after id, last submit)

    def submitted(self, code: str, entry_id: str) -> None:
        """Remember a start before the command's id (answers come after it, on one clock)."""
        known = self._rooms.get(code)
        if known is None:
            if len(self._rooms) >= 10_000:
                self.rooms()  # forget the quiet ones
            ms = int(entry_id.partition("-")[0] or 0)
            known = (f"{max(0, ms - CLOCK_MARGIN_MS)}-0", 0.0)
        self._rooms[code] = (known[0], time.monotonic())

    def rooms(self) -> list[str]:
        """Rooms still worth reading; those quiet for `AWAIT_SECONDS` are forgotten."""
        now = time.monotonic()
        for code, (_, at) in list(self._rooms.items()):
            if now - at > AWAIT_SECONDS:
                del self._rooms[code]
        return list(self._rooms)

    def after(self, code: str) -> str | None:
        known = self._rooms.get(code)
        return None if known is None else known[0]

    def read_up_to(self, code: str, last: str) -> None:
        known = self._rooms.get(code)
        if known is not None:
            self._rooms[code] = (last, known[1])


class Answers:
    """This node's reading of the rooms' answer streams: after a break, or when asked."""

    def __init__(
        self,
        node: str,
        execute: Callable[..., Awaitable[Any]],
        call: Callable[[Callable[[], Awaitable[Any]]], Awaitable[Any]],
    ) -> None:
        self._node = node
        self._execute = execute
        self._call = call  # failures become BusUnavailable
        self.on_reply: ReplyHandler | None = None
        self._awaited = Awaited()
        self._tasks: set[asyncio.Task[None]] = set()

    def submitted(self, code: str, entry_id: str) -> None:
        self._awaited.submitted(code, entry_id)

    def restored(self) -> None:
        """The subscription is back: read every awaited room's stream (in the background)."""
        rooms = self._awaited.rooms()
        if rooms:
            task = asyncio.create_task(self._recover_all(rooms), name="redis-answers")
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _recover_all(self, rooms: list[str]) -> None:
        await asyncio.gather(*(self.recover(code) for code in rooms), return_exceptions=True)

    async def recover(self, code: str) -> int:
        """Hand on this node's answers kept since the last read of the room's stream."""
        after = self._awaited.after(code)
        if after is None:
            return 0
        stream = key(code, "answers")
        found, last = await self._call(
            lambda: read_answers(self._execute, stream, self._node, after)
        )
        self._awaited.read_up_to(code, last)
        for reply_key, payload in found:
            if self.on_reply is not None:
                self.on_reply(reply_key, payload)
        return len(found)

    def close(self) -> None:
        for task in list(self._tasks):
            task.cancel()
