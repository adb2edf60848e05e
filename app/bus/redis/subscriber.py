"""The process's one pub/sub connection: room frames, answers and pokes, reconnected forever.

It subscribes the process's node channel (`R` answers, `P` pokes) and the `frames`
channel of every room with sockets here. Pub/sub loses what is published while the
connection is away, so after each reconnect it replays every room's `tail` (the last
frames message, skipped when it is the one last delivered) and tells the bus (`on_restored`), whose
owners then re-read their inboxes; lost answers come back from the durable answer
streams (app/bus/redis/answers.py), read by the hub's pending table.

On Redis Cluster (`sharded`) there is one of these per master (app/bus/redis/shards.py),
with shard channels (`SSUBSCRIBE`, one command per slot): the node channel only on
its slot's master (`channel` is None on the others). There a `PING` after the
subscriptions marks the connection up: its reply comes after every confirmation.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from redis.asyncio import ConnectionPool

from app.bus.base import GONE, BusUnavailable, Frame, FrameHandler, ReplyHandler
from app.bus.redis.wire import decode_frames, key, stamp_of

log = logging.getLogger("bankit.bus.redis")

BACKOFF_FIRST, BACKOFF_CAP = 0.05, 2.0  # seconds between reconnects
Many = Callable[[list[tuple[Any, ...]]], Awaitable[list[Any]]]


class Subscriber:
    def __init__(
        self,
        pool: ConnectionPool,
        channel: str | None,
        many: Many,
        on_poke: Callable[[str], None],
        on_restored: Callable[[], None],
        on_error: Callable[[], None],
        on_fanout: Callable[[float], None] | None,
        sharded: bool = False,
        own: Callable[[str, bytes], Sequence[Frame] | None] | None = None,
    ) -> None:
        self._pool = pool
        self._channel = channel
        self._sharded = sharded
        self._subscribe = "SSUBSCRIBE" if sharded else "SUBSCRIBE"
        self._unsubscribe = "SUNSUBSCRIBE" if sharded else "UNSUBSCRIBE"
        self._message = b"smessage" if sharded else b"message"
        self._confirmation = b"ssubscribe" if sharded else b"subscribe"
        self._many = many
        self._on_poke = on_poke
        self._on_restored = on_restored
        self._on_error = on_error
        self._on_fanout = on_fanout
        self._own = own  # the frames of a message this process committed (app/bus/redis/own.py)
        self.on_frame: FrameHandler | None = None
        self.on_reply: ReplyHandler | None = None
        self.rooms: dict[str, asyncio.Future[None]] = {}  # subscribed, or being subscribed
        # Per room, the last frames message delivered: a replayed tail that is that message
        # is not delivered twice. (Not the inbox cursor: a command the owner took in one
        # hop moves no cursor, so many messages carry the same.)
        self._delivered: dict[str, bytes] = {}
        self.connected = asyncio.Event()
        self.up_since = 0.0
        self.generation = 0  # bumped at each (re)subscription: pokes may have been lost
        self._connection: Any = None  # the live subscriber connection, if any

    # -- rooms -------------------------------------------------------------------------
    async def subscribe(self, code: str) -> None:
        """Return once the room's channel is subscribed (so no later frame is missed)."""
        confirmed = self.rooms.get(code)
        if confirmed is None:
            confirmed = self.rooms[code] = asyncio.get_running_loop().create_future()
            if self._connection is not None:
                with contextlib.suppress(Exception):  # resubscribed on reconnect anyway
                    await self._connection.send_command(self._subscribe, key(code, "frames"))
        try:
            async with asyncio.timeout(2):
                await asyncio.shield(confirmed)
        except TimeoutError:
            self._on_error()
            raise BusUnavailable("the subscription was not confirmed") from None

    async def unsubscribe(self, code: str) -> None:
        self.rooms.pop(code, None)
        self._delivered.pop(code, None)
        if self._connection is not None:
            with contextlib.suppress(Exception):
                await self._connection.send_command(self._unsubscribe, key(code, "frames"))

    def rehome(self) -> None:
        """The primary changed (a promotion): leave the old one; the loop reconnects to
        whichever primary Sentinel names now and replays what it missed."""
        connection = self._connection
        if connection is not None:
            asyncio.get_running_loop().create_task(connection.disconnect(nowait=True))

    # -- the connection ----------------------------------------------------------------
    async def listen_forever(self) -> None:
        backoff = BACKOFF_FIRST
        while True:
            kwargs = {**self._pool.connection_kwargs, "socket_timeout": None}
            connection = self._pool.connection_class(**kwargs)
            try:
                await connection.connect()  # type: ignore[no-untyped-call]
                if self._sharded:
                    await self._subscribe_each(connection)
                else:
                    channels = [self._channel, *(key(code, "frames") for code in self.rooms)]
                    await connection.send_command("SUBSCRIBE", *channels)
                self._connection = connection
                await self._listen(connection, first=self.generation == 0)
            except asyncio.CancelledError:
                with contextlib.suppress(Exception):
                    await connection.disconnect()
                raise
            except Exception as error:  # noqa: BLE001 - any failure: reconnect, never die
                if self.connected.is_set():
                    log.warning("redis subscription lost (%s); reconnecting", error)
                    backoff = BACKOFF_FIRST
                self._on_error()
            self._connection = None
            self.connected.clear()
            with contextlib.suppress(Exception):
                await connection.disconnect()
            await asyncio.sleep(backoff)
            backoff = min(backoff * 2, BACKOFF_CAP)

    async def _subscribe_each(self, connection: Any) -> None:
        """Shard channels: one SSUBSCRIBE per slot, then the PING that marks them all."""
        channels = [key(code, "frames") for code in self.rooms]
        for channel in [self._channel, *channels] if self._channel else channels:
            await connection.send_command("SSUBSCRIBE", channel)
        await connection.send_command("PING")

    def _up(self, first: bool) -> None:
        self.generation += 1
        self.up_since = time.monotonic()
        self.connected.set()
        self._on_restored()  # pokes may have been lost while away
        if not first:
            log.info("redis subscription restored")
            asyncio.create_task(self._replay_tails(), name="redis-replay")

    async def _listen(self, connection: Any, first: bool) -> None:
        node_confirmed = self._sharded  # sharded: rooms are confirmed each on its own
        node = self._channel.encode() if self._channel else None
        while True:
            message = await connection.read_response(disable_decoding=True, timeout=math.inf)
            kind = message[0]
            if kind == self._message:
                channel, data = message[1], message[2]
                if channel == node:
                    self._node_message(data)
                else:
                    self._room_message(channel, data)
            elif kind == self._confirmation:
                channel = message[1].decode()
                if channel == self._channel and not self._sharded:
                    node_confirmed = True
                    self._up(first)
                elif channel.startswith("bankit:{"):
                    code = channel[len("bankit:{") : channel.index("}")]
                    confirmed = self.rooms.get(code)
                    if confirmed is not None and not confirmed.done() and node_confirmed:
                        confirmed.set_result(None)
            elif kind == b"pong" or message == b"PONG":  # sharded: b"PONG" if no channel
                self._up(first)

    def _node_message(self, data: bytes) -> None:
        if data[:1] == b"R":
            end = data.index(b"\n")
            if self.on_reply is not None:
                self.on_reply(data[1:end].decode(), data[end + 1 :])
        elif data[:1] == b"P":
            self._on_poke(data[1:].decode())

    def _room_message(self, channel: bytes, data: bytes, replayed: bool = False) -> None:
        code = channel[len(b"bankit:{") : channel.index(b"}")].decode()
        if code not in self.rooms or self.on_frame is None:
            return  # unsubscribed while the message was on its way
        if replayed and self._delivered.get(code) == data:
            return  # a replayed tail this process already delivered
        self._delivered[code] = data
        frames = None if self._own is None else self._own(code, data)
        if frames is None:
            _, stamp, frames = decode_frames(data)
        else:
            stamp = stamp_of(data)
        if self._on_fanout is not None:
            self._on_fanout(max(0.0, time.time() - stamp / 1e6))
        for frame in frames:
            self.on_frame(code, frame)

    async def _replay_tails(self) -> None:
        """After a reconnect, hand on each subscribed room's last frames (or `gone`)."""
        codes = list(self.rooms)
        if not codes:
            return
        commands: list[tuple[Any, ...]] = []
        for code in codes:
            commands += [("GET", key(code, "tail")), ("EXISTS", key(code, "snap"))]
        try:
            found = await self._many(commands)
        except BusUnavailable:
            return  # the next reconnect tries again
        for index, code in enumerate(codes):
            tail, exists = found[2 * index], found[2 * index + 1]
            if tail:
                self._room_message(key(code, "frames").encode(), tail, replayed=True)
            elif not exists and code in self.rooms and self.on_frame is not None:
                self.on_frame(code, Frame(GONE, 0, ""))
