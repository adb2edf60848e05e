"""The many-process backplane: rooms, inboxes, ownership and fan-out in Redis.

Every key and channel of a room carries the room as a hash tag (`bankit:{K7QF}:…`),
so one room's keys live on one Redis Cluster slot and each script touches one slot:
- `snap` (string) the room snapshot, `log` (list) the event log, `cursor` (string) the
  id of the last stream entry the snapshot includes;
- `cmds` (stream) the room's single ordered inbox: `submit` is an XADD, so arrival
  at Redis decides the order, whichever process the command came through;
- `epoch` (counter) and `lease` (`"<epoch> <node>"`, SET NX PX): one owner at a time,
  and `commit` (one Lua script) writes only while the caller's lease is the current
  one, so an owner that stalled past its lease can never write after a takeover;
- `tail` (string) the last published frames message, replayed after a subscription
  reconnects (pub/sub loses what is published while a subscriber is away);
- channel `bankit:{CODE}:frames`: one message per commit, published by the commit
  script itself, so frames go out once, in commit order, and only if persisted.

Each process has its own channel `bankit:node:{<node id>}` for command answers
(`R`) and for "new commands in your room" pokes (`P`), so owners need no blocking
XREAD per room: one subscriber connection per process carries everything.
Every Redis failure surfaces as `BusUnavailable`; the subscriber reconnects by
itself with capped backoff.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import secrets
import time
from collections.abc import Awaitable, Callable, Collection, Sequence
from typing import Any, TypeVar

import redis.asyncio as aioredis
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from app.bus.base import BusUnavailable, Frame, FrameHandler, Reply, ReplyHandler
from app.bus.redis_mux import Multiplexer
from app.bus.redis_wire import (
    CLAIM,
    COMMIT,
    CREATE,
    RELEASE,
    RENEW,
    SUBMIT,
    cursor_key,
    decode_frames,
    encode_frames,
    key,
    node_channel,
)

__all__ = ["RedisBus", "decode_frames", "encode_frames", "key", "node_channel"]

log = logging.getLogger("bankit.bus.redis")

T = TypeVar("T")
FAILURES = (RedisConnectionError, RedisTimeoutError, OSError, asyncio.TimeoutError)
READ_COUNT = 100  # commands read (and committed) at once by an owner
BACKOFF_FIRST, BACKOFF_CAP = 0.05, 2.0  # seconds between subscriber reconnects
REREAD_SECONDS = 5.0  # an owner re-reads its stream this often even without pokes


class RedisBus:
    """The `Bus` of many processes; see the module docstring for the keys it keeps."""

    def __init__(
        self,
        url: str,
        *,
        lease_seconds: float = 1.5,
        room_ttl_seconds: float = 6 * 3600,
        node_ttl_seconds: float = 5.0,
        command_timeout: float = 2.0,
        on_error: Callable[[], None] | None = None,
        on_fanout: Callable[[float], None] | None = None,
    ) -> None:
        self.node_id = "n-" + secrets.token_hex(6)
        self.lease_ms = int(lease_seconds * 1000)
        self.ttl_ms = int(room_ttl_seconds * 1000)
        self.node_ttl_ms = int(node_ttl_seconds * 1000)
        self._on_error = on_error or (lambda: None)
        self._on_fanout = on_fanout
        # No automatic retries: a retried XADD or commit could run twice. RESP2, whose
        # reply shapes (and plain pub/sub messages) are the same in every redis-py.
        self._redis = aioredis.Redis.from_url(
            url,
            protocol=2,
            socket_timeout=command_timeout,
            socket_connect_timeout=command_timeout,
            retry=Retry(NoBackoff(), 0),
        )
        self._mux = Multiplexer(self._redis.connection_pool, command_timeout)
        self._on_frame: FrameHandler | None = None
        self._on_reply: ReplyHandler | None = None
        self._channel = node_channel(self.node_id)
        self._rooms: dict[str, asyncio.Future[None]] = {}  # subscribed, or being subscribed
        self._delivered: dict[str, tuple[int, int]] = {}  # last cursor delivered per room
        self._pokes: dict[str, asyncio.Event] = {}
        self._read_at: dict[str, tuple[int, float]] = {}  # generation and time of last read
        self._committed: dict[str, float] = {}  # last successful commit (it renews the lease)
        self._generation = 0  # bumped at each (re)subscription: pokes may have been lost
        self._subscriber: Any = None  # the live subscriber connection, if any
        self._listener: asyncio.Task[None] | None = None
        self._connected = asyncio.Event()
        self._up_since = 0.0

    # -- life -----------------------------------------------------------------------
    async def start(self, on_frame: FrameHandler, on_reply: ReplyHandler) -> None:
        self._on_frame, self._on_reply = on_frame, on_reply
        self._listener = asyncio.create_task(self._listen_forever(), name="redis-subscriber")
        with contextlib.suppress(TimeoutError):  # start anyway: it keeps retrying
            async with asyncio.timeout(2):
                await self._connected.wait()

    async def close(self) -> None:
        if self._listener is not None:
            self._listener.cancel()
            await asyncio.gather(self._listener, return_exceptions=True)
        await self._mux.close()
        with contextlib.suppress(Exception):
            await self._redis.aclose()

    async def ready(self) -> bool:
        if not self._connected.is_set():
            return False
        try:
            async with asyncio.timeout(1):
                return bool(await self._mux.execute("PING") == b"PONG")
        except Exception:  # noqa: BLE001 - whatever fails, the answer is "not ready"
            return False

    @property
    def up_for(self) -> float:
        """Seconds since the subscriber last (re)connected; 0 while it is down."""
        return time.monotonic() - self._up_since if self._connected.is_set() else 0.0

    async def _call(self, make: Callable[[], Awaitable[T]]) -> T:
        """Run one Redis call; every connection failure becomes `BusUnavailable`."""
        try:
            return await make()
        except FAILURES as error:
            self._on_error()
            raise BusUnavailable(str(error) or type(error).__name__) from error

    # -- room records -----------------------------------------------------------------
    async def create_room(self, code: str, snapshot: bytes, first_entry: bytes) -> bool:
        keys = [key(code, p) for p in ("snap", "log", "cursor", "cmds", "tail", "lease")]
        args = [snapshot, first_entry, self.ttl_ms]
        return bool(await self._call(lambda: self._mux.script(CREATE, keys, args)))

    async def load_snapshot(self, code: str) -> bytes | None:
        return await self._call(lambda: self._mux.execute("GET", key(code, "snap")))

    async def load_log(self, code: str) -> list[bytes]:
        return await self._call(lambda: self._mux.execute("LRANGE", key(code, "log"), 0, -1))

    async def load_cursor(self, code: str) -> str:
        raw = await self._call(lambda: self._mux.execute("GET", key(code, "cursor")))
        return raw.decode() if raw else "0"

    async def delete_room(self, code: str) -> None:
        parts = ("snap", "log", "cursor", "cmds", "tail", "lease", "epoch")
        gone = encode_frames("", [Frame("gone", 0, "")])
        await self._call(lambda: self._mux.execute("DEL", *(key(code, p) for p in parts)))
        await self._call(lambda: self._mux.execute("PUBLISH", key(code, "frames"), gone))
        self._forget_room(code)

    # -- ownership -------------------------------------------------------------------
    def _lease(self, epoch: int) -> str:
        return f"{epoch} {self.node_id}"

    async def claim(self, code: str) -> int | None:
        keys = [key(code, "snap"), key(code, "lease"), key(code, "epoch")]
        args = [self.node_id, self.lease_ms, self.ttl_ms]
        epoch = int(await self._call(lambda: self._mux.script(CLAIM, keys, args)))
        if epoch <= 0:
            return None
        self._read_at.pop(code, None)  # read the stream at once: commands may be waiting
        return epoch

    async def renew(self, code: str, epoch: int) -> bool:
        committed = self._committed.get(code)
        if committed is not None and time.monotonic() - committed < self.lease_ms / 3000:
            return True  # a commit just now pushed the lease's expiry: nothing to do
        args = [self._lease(epoch), self.lease_ms]
        lease = [key(code, "lease")]
        renewed = bool(await self._call(lambda: self._mux.script(RENEW, lease, args)))
        if not renewed:
            self._forget_owned(code)
        return renewed

    async def release(self, code: str, epoch: int) -> None:
        self._forget_owned(code)
        args = [self._lease(epoch)]
        await self._call(lambda: self._mux.script(RELEASE, [key(code, "lease")], args))

    def _forget_owned(self, code: str) -> None:
        self._pokes.pop(code, None)
        self._read_at.pop(code, None)
        self._committed.pop(code, None)

    # -- commands --------------------------------------------------------------------
    async def submit(self, code: str, envelope: bytes) -> None:
        keys = [key(code, "snap"), key(code, "cmds"), key(code, "lease")]
        args = [envelope, self.node_id, self.ttl_ms, code]
        owner = await self._call(lambda: self._mux.script(SUBMIT, keys, args))
        if owner is None:
            raise KeyError(code)
        if owner == self.node_id.encode():
            self._poke(code)

    def _poke(self, code: str) -> None:
        event = self._pokes.get(code)
        if event is None:
            event = self._pokes[code] = asyncio.Event()
        event.set()

    async def read_commands(
        self, code: str, after: str, block_ms: int | None
    ) -> list[tuple[str, bytes]]:
        """Wait for a poke (or a reconnect, or the periodic re-read), then XREAD once.

        Pokes travel by pub/sub, which loses nothing on a live connection; a
        reconnect bumps the generation, and every owner then reads its stream again.
        """
        event = self._pokes.get(code)
        if event is None:
            event = self._pokes[code] = asyncio.Event()
        wait = REREAD_SECONDS if block_ms is None else block_ms / 1000  # owners always renew
        deadline = time.monotonic() + wait
        last = self._read_at.get(code)
        if (
            last is None
            or last[0] != self._generation
            or time.monotonic() - last[1] >= REREAD_SECONDS
        ):
            event.set()
        while True:
            if event.is_set():
                event.clear()
                self._read_at[code] = (self._generation, time.monotonic())
                batch = await self._xread(code, after)
                if batch:
                    if len(batch) >= READ_COUNT:
                        event.set()  # there may be more
                    return batch
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return []
            try:
                async with asyncio.timeout(remaining):
                    await event.wait()
            except TimeoutError:
                return []

    async def _xread(self, code: str, after: str) -> list[tuple[str, bytes]]:
        stream = key(code, "cmds")
        reply = await self._call(
            lambda: self._mux.execute("XREAD", "COUNT", READ_COUNT, "STREAMS", stream, after)
        )
        if not reply:
            return []
        return [(entry_id.decode(), fields[1]) for entry_id, fields in reply[0][1]]

    async def commit(
        self,
        code: str,
        epoch: int,
        cursor: str,
        snapshot: bytes,
        entries: Sequence[bytes],
        frames: Sequence[Frame],
        replies: Sequence[Reply] = (),
    ) -> bool:
        keys = [key(code, p) for p in ("lease", "snap", "log", "cursor", "cmds", "tail", "epoch")]
        message = encode_frames(cursor, frames) if frames else b""
        args: list[Any] = [
            self._lease(epoch),
            self.lease_ms,
            self.ttl_ms,
            snapshot,
            cursor,
            message,
            key(code, "frames"),
            *entries,
        ]
        done = bool(await self._call(lambda: self._mux.script(COMMIT, keys, args)))
        if not done:
            self._forget_owned(code)
            return False
        self._committed[code] = time.monotonic()
        for answer in replies:
            await self.reply(answer.node, answer.key, answer.payload)
        return True

    # -- nodes (heartbeats, for dropping the presence a dead process left behind) -------
    async def heartbeat(self) -> None:
        alive = node_channel(self.node_id) + ":alive"
        await self._call(lambda: self._mux.execute("SET", alive, b"1", "PX", self.node_ttl_ms))

    async def live_nodes(self, nodes: Collection[str]) -> set[str]:
        """Those of `nodes` whose process beat recently."""
        if not nodes:
            return set()
        ordered = list(nodes)
        found = await self._mget([node_channel(node) + ":alive" for node in ordered])
        return {node for node, hit in zip(ordered, found, strict=True) if hit is not None}

    async def unowned(self, codes: Collection[str]) -> list[str]:
        """Those of `codes` whose lease has lapsed (their owner may be dead)."""
        if not codes:
            return []
        ordered = list(codes)
        found = await self._mget([key(code, "lease") for code in ordered])
        return [code for code, held in zip(ordered, found, strict=True) if held is None]

    async def _mget(self, keys: list[str]) -> list[Any]:
        """Values of many keys, 500 per MGET (on Redis Cluster: group them by slot)."""
        chunks = [keys[at : at + 500] for at in range(0, len(keys), 500)]
        replies = await self._many([("MGET", *chunk) for chunk in chunks])
        return [value for reply in replies for value in reply]

    # -- fan-out ---------------------------------------------------------------------
    async def subscribe(self, code: str) -> None:
        """Return once the room's channel is subscribed (so no later frame is missed)."""
        confirmed = self._rooms.get(code)
        if confirmed is None:
            confirmed = self._rooms[code] = asyncio.get_running_loop().create_future()
            if self._subscriber is not None:
                with contextlib.suppress(*FAILURES):  # the listener resubscribes on reconnect
                    await self._subscriber.send_command("SUBSCRIBE", key(code, "frames"))
        try:
            async with asyncio.timeout(2):
                await asyncio.shield(confirmed)
        except TimeoutError:
            self._on_error()
            raise BusUnavailable("the subscription was not confirmed") from None

    async def unsubscribe(self, code: str) -> None:
        self._rooms.pop(code, None)
        self._delivered.pop(code, None)
        if self._subscriber is not None:
            with contextlib.suppress(*FAILURES):
                await self._subscriber.send_command("UNSUBSCRIBE", key(code, "frames"))

    def _forget_room(self, code: str) -> None:
        self._forget_owned(code)

    async def reply(self, node: str, key_: str, payload: bytes) -> None:
        """Answers go through Redis even to this process: after the state they follow."""
        message = b"R" + key_.encode() + b"\n" + payload
        await self._call(lambda: self._mux.execute("PUBLISH", node_channel(node), message))

    async def _many(self, commands: list[tuple[Any, ...]]) -> list[Any]:
        """Several commands written at once (the multiplexer pipelines them)."""

        async def run() -> list[Any]:
            return list(await asyncio.gather(*(self._mux.execute(*c) for c in commands)))

        return await self._call(run)

    # -- the subscriber ------------------------------------------------------------------
    async def _listen_forever(self) -> None:
        backoff = BACKOFF_FIRST
        pool = self._redis.connection_pool
        while True:
            kwargs = {**pool.connection_kwargs, "socket_timeout": None}
            connection = pool.connection_class(**kwargs)
            try:
                await connection.connect()  # type: ignore[no-untyped-call]
                channels = [self._channel, *(key(code, "frames") for code in self._rooms)]
                await connection.send_command("SUBSCRIBE", *channels)
                self._subscriber = connection
                await self._listen(connection, first=self._generation == 0)
            except asyncio.CancelledError:
                with contextlib.suppress(Exception):
                    await connection.disconnect()
                raise
            except Exception as error:  # noqa: BLE001 - any failure: reconnect, never die
                if self._connected.is_set():
                    log.warning("redis subscription lost (%s); reconnecting", error)
                    backoff = BACKOFF_FIRST
                self._on_error()
            self._subscriber = None
            self._connected.clear()
            with contextlib.suppress(Exception):
                await connection.disconnect()
            await asyncio.sleep(backoff)
            backoff = min(backoff * 2, BACKOFF_CAP)

    async def _listen(self, connection: Any, first: bool) -> None:
        node_confirmed = False
        while True:
            message = await connection.read_response(disable_decoding=True, timeout=math.inf)
            kind = message[0]
            if kind == b"message":
                channel, data = message[1], message[2]
                if channel == self._channel.encode():
                    self._node_message(data)
                else:
                    self._room_message(channel, data)
            elif kind == b"subscribe":
                channel = message[1].decode()
                if channel == self._channel:
                    node_confirmed = True
                    self._generation += 1
                    self._up_since = time.monotonic()
                    self._connected.set()
                    for event in self._pokes.values():
                        event.set()  # pokes may have been lost while away
                    if not first:
                        log.info("redis subscription restored")
                        asyncio.create_task(self._replay_tails(), name="redis-replay")
                elif channel.startswith("bankit:{"):
                    code = channel[len("bankit:{") : channel.index("}")]
                    confirmed = self._rooms.get(code)
                    if confirmed is not None and not confirmed.done() and node_confirmed:
                        confirmed.set_result(None)

    def _node_message(self, data: bytes) -> None:
        if data[:1] == b"R":
            end = data.index(b"\n")
            if self._on_reply is not None:
                self._on_reply(data[1:end].decode(), data[end + 1 :])
        elif data[:1] == b"P":
            self._poke(data[1:].decode())

    def _room_message(self, channel: bytes, data: bytes) -> None:
        code = channel[len(b"bankit:{") : channel.index(b"}")].decode()
        if code not in self._rooms or self._on_frame is None:
            return  # unsubscribed while the message was on its way
        cursor, stamp, frames = decode_frames(data)
        if cursor:
            position = cursor_key(cursor)
            if position <= self._delivered.get(code, (-1, -1)):
                return  # a replayed tail this process already delivered
            self._delivered[code] = position
        if self._on_fanout is not None:
            self._on_fanout(max(0.0, time.time() - stamp / 1e6))
        for frame in frames:
            self._on_frame(code, frame)

    async def _replay_tails(self) -> None:
        """After a reconnect, hand on each subscribed room's last frames (or `gone`)."""
        codes = list(self._rooms)
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
                self._room_message(key(code, "frames").encode(), tail)
            elif not exists and code in self._rooms and self._on_frame is not None:
                self._on_frame(code, Frame("gone", 0, ""))
