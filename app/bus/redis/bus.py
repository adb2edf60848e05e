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
- `answers` (stream) every command's answer, written by the commit script itself
  (app/bus/redis/answers.py), so that no answer is lost with a pub/sub message;
- channel `bankit:{CODE}:frames`: one message per commit, published by the commit
  script itself, so frames go out once, in commit order, and only if persisted;
- `keep` (string, ms): how long the room outlives its last event, for a room created
  with a time of its own (`keep_seconds`: a group's); else the bus's `room_ttl_seconds`.
  Every script that sets the room's TTL reads it, on whichever process runs it.

Each process has its own channel `bankit:node:{<node id>}` for command answers
(`R`) and for "new commands in your room" pokes (`P`), so owners need no blocking
XREAD per room: one subscriber connection per process carries everything
(app/bus/redis/subscriber.py; the owners' wait: app/bus/redis/inbox.py).
Every Redis failure surfaces as `BusUnavailable`; the subscriber reconnects by
itself with capped backoff.

On Redis Cluster (`redis+cluster://h:p,h:p…`, or `cluster=True`) the same keys and
scripts run, each on its room's slot's master (app/bus/redis/cluster.py), channels
are shard channels (`SPUBLISH`; one subscriber per master: app/bus/redis/shards.py),
and what a script may not publish (to another slot) the bus publishes right after it:
pokes after `submit`, answers after `commit` (durable in the room's answer stream
anyway). See docs/architecture-redis.md, "Redis Cluster".
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import time
from collections.abc import Awaitable, Callable, Collection, Sequence
from typing import Any, TypeVar

import redis.asyncio as aioredis
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import ResponseError
from redis.exceptions import TimeoutError as RedisTimeoutError

from app.bus.base import (
    GONE,
    BusUnavailable,
    Committed,
    Frame,
    FrameHandler,
    Reply,
    ReplyHandler,
)
from app.bus.redis.answers import ANSWERS_KEPT, Answers, answer_args
from app.bus.redis.cluster import SCHEME, ClusterRouter, cluster_seeds
from app.bus.redis.inbox import READ_COUNT, Inbox
from app.bus.redis.mux import Multiplexer
from app.bus.redis.nodes import alive_key, lapsed, live
from app.bus.redis.own import OwnFrames
from app.bus.redis.replicas import Replicas
from app.bus.redis.sentinel import SCHEME as SENTINEL_SCHEME
from app.bus.redis.sentinel import primary
from app.bus.redis.shards import ShardedSubscriber
from app.bus.redis.subscriber import Subscriber
from app.bus.redis.tally import RedisTally
from app.bus.redis.wire import (
    CLAIM,
    COMMIT,
    COMMIT_HELD,
    COMMIT_KEYS,
    COMMIT_SHARDED,
    CREATE,
    RELEASE,
    RENEW,
    REVERT,
    SUBMIT,
    SUBMIT_SHARDED,
    decode_frames,
    encode_frames,
    key,
    node_channel,
)

__all__ = ["RedisBus", "decode_frames", "encode_frames", "key", "node_channel"]

T = TypeVar("T")
FAILURES = (RedisConnectionError, RedisTimeoutError, OSError, asyncio.TimeoutError)
# Refusals of a primary that cannot take writes now (a demoted one, one cut off from its
# replicas under `min-replicas-to-write`): the call failed; ask Sentinel again.
NOT_PRIMARY = {"READONLY", "NOREPLICAS", "MASTERDOWN", "LOADING"}


def not_primary(error: BaseException) -> bool:
    """The server refused as a primary that cannot take writes now (NOT_PRIMARY)."""
    return bool({getattr(error, "status_code", None), *str(error).split()} & NOT_PRIMARY)


ROOM_PARTS = ("snap", "log", "cursor", "cmds", "tail", "lease", "answers", "keep")


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
        cluster: bool = False,
        min_replicas: int | None = None,
        replica_wait_seconds: float = 0.5,
        on_error: Callable[[], None] | None = None,
        on_fanout: Callable[[float], None] | None = None,
    ) -> None:
        self.node_id = "n-" + secrets.token_hex(6)
        self.lease_ms = int(lease_seconds * 1000)
        self.ttl_ms = int(room_ttl_seconds * 1000)
        self.node_ttl_ms = int(node_ttl_seconds * 1000)
        self._on_error = on_error or (lambda: None)
        self.cluster = cluster or url.startswith(SCHEME)
        sentinel = url.startswith(SENTINEL_SCHEME)
        plain, seeds = cluster_seeds(url) if self.cluster else (url, [])
        # No automatic retries: a retried XADD or commit could run twice. RESP2, whose
        # reply shapes (and plain pub/sub messages) are the same in every redis-py.
        self._redis = (
            primary(url, command_timeout)
            if sentinel
            else aioredis.Redis.from_url(
                plain,
                protocol=2,
                socket_timeout=command_timeout,
                socket_connect_timeout=command_timeout,
                retry=Retry(NoBackoff(), 0),
            )
        )
        # Acks that survive a promotion (app/bus/redis/replicas.py); not on Redis Cluster.
        self._replicas = Replicas(
            0 if self.cluster else min_replicas, replica_wait_seconds, sentinel, self._rehome
        )
        pool, channel = self._redis.connection_pool, node_channel(self.node_id)
        hooks: dict[str, Any] = {
            "on_poke": self._poke,
            "on_restored": self._restored,
            "on_error": self._on_error,
            "on_fanout": on_fanout,
        }
        self._mux: Multiplexer | ClusterRouter
        self._subscriber: Subscriber | ShardedSubscriber
        self._router: ClusterRouter | None = None
        self._own: OwnFrames | None = None  # the frames of this process's commits, kept
        if self.cluster:
            self._mux = self._router = router = ClusterRouter(seeds, pool, command_timeout)
            self._subscriber = ShardedSubscriber(router, channel, self._many, **hooks)
        else:
            self._mux = Multiplexer(pool, command_timeout, self._replicas.on_connect)
            self._own = OwnFrames()
            self._subscriber = Subscriber(pool, channel, self._many, own=self._own.back, **hooks)
        self._submit_script = SUBMIT_SHARDED if self.cluster else SUBMIT
        self._commit_script = COMMIT_SHARDED if self.cluster else COMMIT
        self._publish = "SPUBLISH" if self.cluster else "PUBLISH"
        self._inbox = Inbox(self._xread, lambda: self._subscriber.generation)
        self._connected = self._subscriber.connected
        self._committed: dict[str, float] = {}  # last successful commit (it renews the lease)
        self._kept: dict[str, tuple[int, Callable[[str], None]]] = {}  # `keep_lease`'s
        self._keeper: asyncio.Task[None] | None = None
        self._soon: list[tuple[Committed, tuple[Any, ...]]] = []  # this turn's `commit_soon`
        self._submitting: dict[str, int] = {}  # per room, this process's XADDs on their way
        self._tasks: set[asyncio.Task[None]] = set()
        self._listener: asyncio.Task[None] | None = None
        self._answers = Answers(self.node_id, self._mux.execute, self._call)
        # Per-address shares counted by every process together (app/api/limits.py).
        self.tally = RedisTally(self.node_id, self._script, node_ttl_seconds, room_ttl_seconds)

    # -- life -----------------------------------------------------------------------
    async def start(self, on_frame: FrameHandler, on_reply: ReplyHandler) -> None:
        self._subscriber.on_frame, self._subscriber.on_reply = on_frame, on_reply
        self._answers.on_reply = on_reply
        listen = self._subscriber.listen_forever()
        self._listener = asyncio.create_task(listen, name="redis-subscriber")
        with contextlib.suppress(TimeoutError, BusUnavailable):  # start anyway: it retries
            async with asyncio.timeout(2):
                await self._connected.wait()
                await self._needed()

    async def close(self) -> None:
        if self._keeper is not None:
            self._keeper.cancel()
            await asyncio.gather(self._keeper, return_exceptions=True)
        if self._listener is not None:
            self._listener.cancel()
            await asyncio.gather(self._listener, return_exceptions=True)
        self._answers.close()
        self.tally.close()
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
        return time.monotonic() - self._subscriber.up_since if self._connected.is_set() else 0.0

    async def _call(self, make: Callable[[], Awaitable[T]]) -> T:
        """Run one Redis call; every connection failure becomes `BusUnavailable`."""
        try:
            return await make()
        except FAILURES as error:
            self._on_error()
            raise BusUnavailable(str(error) or type(error).__name__) from error
        except ResponseError as error:
            if not not_primary(error):
                raise
            self._on_error()
            if isinstance(self._mux, Multiplexer):
                await self._mux.reset(str(error))
            raise BusUnavailable(str(error)) from error

    async def _script(self, body: str, keys: list[Any], args: list[Any]) -> Any:
        return await self._call(lambda: self._mux.script(body, keys, args))

    def _rehome(self) -> None:
        if isinstance(self._subscriber, Subscriber):
            self._subscriber.rehome()

    async def _needed(self) -> int:
        """Replicas a write must reach; decided at the first connection when not set."""
        if self._replicas.wanted is None and isinstance(self._mux, Multiplexer):
            await self._call(lambda: self._mux.execute("PING"))  # connects: ROLE decides
        return self._replicas.needed

    @property
    def min_replicas(self) -> int:
        """Replicas a commit must reach before it is answered (0: answered at once)."""
        return self._replicas.needed

    # -- room records -----------------------------------------------------------------
    async def create_room(
        self, code: str, snapshot: bytes, first_entry: bytes, keep_seconds: float | None = None
    ) -> bool:
        keys = [key(code, p) for p in ROOM_PARTS]
        kept = int((keep_seconds or 0) * 1000)  # the room's own time: kept when it is longer
        args = [snapshot, first_entry, max(kept, self.ttl_ms), int(kept > self.ttl_ms)]
        return bool(await self._call(lambda: self._mux.script(CREATE, keys, args)))

    async def load_snapshot(self, code: str) -> bytes | None:
        raw: bytes | None = await self._call(lambda: self._mux.execute("GET", key(code, "snap")))
        if code in self._replicas.restoring:  # the record a new owner restores: kept for REVERT
            self._replicas.restoring.discard(code)
            if raw is not None:
                self._replicas.before[code] = (raw, None)  # its cursor is read next
        return raw

    async def load_log(self, code: str) -> list[bytes]:
        return await self._call(lambda: self._mux.execute("LRANGE", key(code, "log"), 0, -1))

    async def load_cursor(self, code: str) -> str:
        raw = await self._call(lambda: self._mux.execute("GET", key(code, "cursor")))
        cursor = raw.decode() if raw else "0"
        before = self._replicas.before.get(code)
        if before is not None and before[1] is None:
            self._replicas.before[code] = (before[0], cursor)
        return cursor

    async def delete_room(self, code: str) -> None:
        parts = (*ROOM_PARTS, "epoch")
        gone = encode_frames("", [Frame(GONE, 0, "")])
        await self._call(lambda: self._mux.execute("DEL", *(key(code, p) for p in parts)))
        await self._call(lambda: self._mux.execute(self._publish, key(code, "frames"), gone))
        self._forget_owned(code)

    # -- ownership -------------------------------------------------------------------
    def _lease(self, epoch: int) -> str:
        return f"{epoch} {self.node_id}"

    async def claim(self, code: str) -> int | None:
        keys = [key(code, p) for p in ("snap", "lease", "epoch", "keep")]
        args = [self.node_id, self.lease_ms, self.ttl_ms]
        if await self._needed() and isinstance(self._mux, Multiplexer):
            mux = self._mux
            reply, confirmed = await self._call(
                lambda: self._replicas.written(mux, CLAIM, keys, args)
            )
            epoch = int(reply)
            if epoch > 0 and not confirmed:  # replicas out of reach: own nothing now
                await self.release(code, epoch)
                raise BusUnavailable(f"room {code}: the replicas did not confirm the claim")
            if epoch > 0:
                self._replicas.restoring.add(code)
        else:
            epoch = int(await self._call(lambda: self._mux.script(CLAIM, keys, args)))
        if epoch <= 0:
            return None
        self._inbox.read_now(code)
        return epoch

    def _renewed_by_commit(self, code: str, now: float) -> bool:
        """A commit pushed the lease's expiry less than a third of a lease ago."""
        committed = self._committed.get(code)
        return committed is not None and now - committed < self.lease_ms / 3000

    async def renew(self, code: str, epoch: int) -> bool:
        if self._renewed_by_commit(code, time.monotonic()):
            return True  # nothing to do
        args = [self._lease(epoch), self.lease_ms]
        lease = [key(code, "lease")]
        renewed = bool(await self._call(lambda: self._mux.script(RENEW, lease, args)))
        if not renewed:
            self._forget_owned(code)
        return renewed

    def keep_lease(self, code: str, epoch: int, lost: Callable[[str], None]) -> None:
        self._kept[code] = (epoch, lost)
        if self._keeper is None or self._keeper.done():
            self._keeper = asyncio.get_running_loop().create_task(
                self._keep_leases(), name="redis-leases"
            )

    def stop_keeping(self, code: str, epoch: int) -> None:
        kept = self._kept.get(code)
        if kept is not None and kept[0] == epoch:
            del self._kept[code]

    async def _keep_leases(self) -> None:
        """Every third of a lease, renew every kept lease no commit renewed meanwhile, in
        one pipelined write (a timer and a call per room cost an idle 50-room process
        ~30 ms of CPU a second, and Redis ~8). A lease renewed too late is lost."""
        every = self.lease_ms / 3000
        while self._kept:
            await asyncio.sleep(every)
            now = time.monotonic()
            due = [
                (code, epoch)
                for code, (epoch, _) in self._kept.items()
                if not self._renewed_by_commit(code, now)
            ]
            if not due:
                continue
            for (code, epoch), why in zip(due, await self._renew_all(due), strict=True):
                kept = self._kept.get(code)
                if why is None or kept is None or kept[0] != epoch:
                    continue  # renewed, or its owner stopped meanwhile
                self._inbox.interrupt(code)
                self._forget_owned(code)
                kept[1](why)

    async def _renew_all(self, rooms: list[tuple[str, int]]) -> list[str | None]:
        """RENEW each room's lease: None where renewed, else why not."""
        ms = self.lease_ms
        calls = [([key(code, "lease")], [self._lease(epoch), ms]) for code, epoch in rooms]
        mux = self._mux
        replies: list[Any]
        try:
            if isinstance(mux, Multiplexer):
                replies = await self._call(lambda: mux.scripts(RENEW, calls))
            else:  # Redis Cluster: each lease on its own slot's master
                renewals = (self._script(RENEW, keys, args) for keys, args in calls)
                replies = list(await asyncio.gather(*renewals, return_exceptions=True))
        except BusUnavailable as error:
            replies = [error] * len(calls)
        reset = False
        whys: list[str | None] = []
        for reply in replies:
            if isinstance(reply, BaseException):
                if not isinstance(reply, BusUnavailable):
                    self._on_error()
                    reset = reset or not_primary(reply)
                whys.append(f"backplane unreachable ({reply})")
            else:
                whys.append(None if reply == 1 else "lease lost")
        if reset and isinstance(mux, Multiplexer):
            await mux.reset("the primary refused a renewal")
        return whys

    async def release(self, code: str, epoch: int) -> None:
        self._forget_owned(code)
        args = [self._lease(epoch)]
        await self._call(lambda: self._mux.script(RELEASE, [key(code, "lease")], args))

    def _forget_owned(self, code: str) -> None:
        self._kept.pop(code, None)
        self._inbox.forget(code)
        self._committed.pop(code, None)
        self._replicas.before.pop(code, None)
        self._replicas.restoring.discard(code)

    # -- commands --------------------------------------------------------------------
    def submit_nowait(self, code: str, envelope: bytes) -> bool:
        return False  # the inbox is a Redis stream: a command always crosses the network

    async def submit(self, code: str, envelope: bytes) -> None:
        keys = [key(code, p) for p in ("snap", "cmds", "lease", "keep")]
        args = [envelope, self.node_id, self.ttl_ms, code]
        self._submitting[code] = self._submitting.get(code, 0) + 1  # not `idle` meanwhile
        try:
            reply = await self._call(lambda: self._mux.script(self._submit_script, keys, args))
        finally:
            left = self._submitting.pop(code) - 1
            if left:
                self._submitting[code] = left
        if reply is None:
            raise KeyError(code)
        owner, entry_id = reply
        self._answers.submitted(code, entry_id.decode())
        if owner == self.node_id.encode():
            self._poke(code)
        elif owner and self._router is not None:  # the script could not: another slot
            poke = (node_channel(owner.decode()), b"P" + code.encode())
            self._router.publish_soon([poke], self._on_error)

    def _poke(self, code: str) -> None:
        self._inbox.poke(code)

    def _restored(self) -> None:
        """The subscription is back: owners re-read, and lost answers are sought."""
        self._inbox.wake_all()
        self._answers.restored()

    async def read_commands(
        self, code: str, after: str, block_ms: int | None
    ) -> list[tuple[str, bytes]]:
        return await self._inbox.read(code, after, block_ms)

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
        if await self._needed() and isinstance(self._mux, Multiplexer):
            message = encode_frames(cursor, frames) if frames else b""
            return await self._commit_confirmed(
                code, epoch, cursor, snapshot, entries, message, replies
            )
        return await self._commit_one(code, epoch, cursor, snapshot, entries, frames, replies)

    async def _commit_one(self, *commit: Any) -> bool:
        """One COMMIT, awaited: `commit`'s without replicas to wait for, and each of
        `commit_soon`'s on Redis Cluster (its room's master)."""
        keys, args = self._commit_call(*commit)
        script = self._commit_script
        result = await self._call(lambda: self._mux.script(script, keys, args))
        return self._stored(commit[0], result, commit[6])

    async def log_length(self, code: str) -> int:
        return int(await self._call(lambda: self._mux.execute("LLEN", key(code, "log"))))

    def _await_answers(self, code: str, result: Any, replies: Sequence[Reply]) -> None:
        """A commit answered commands of this process (one it took in one hop has no
        stream id of its own): its answers are sought in the room's stream after a break
        in the subscription, from about the first one's id (COMMIT's reply)."""
        if isinstance(result, bytes) and any(reply.node == self.node_id for reply in replies):
            self._answers.submitted(code, result.decode())

    def _commit_call(
        self,
        code: str,
        epoch: int,
        cursor: str,
        snapshot: bytes,
        entries: Sequence[bytes],
        frames: Sequence[Frame],
        replies: Sequence[Reply],
        logged: int | None = None,
    ) -> tuple[list[Any], list[Any]]:
        """COMMIT's keys and arguments (no replicas to wait for); `logged`: the length of
        the log it must extend (None: whatever it is). The frames message names no cursor:
        a command taken in one hop moves none, and a process of the version before this
        one skips a message whose cursor is not newer than the last it delivered."""
        message = encode_frames("", frames) if frames else b""
        if message and self._own is not None and self._own_subscriber(code):
            self._own.sent(code, message, frames)  # handed on as made when it comes back
        keys = [key(code, part) for part in COMMIT_KEYS]
        head = [self._lease(epoch), self.lease_ms, self.ttl_ms, snapshot, cursor, message]
        chained = "" if logged is None else logged  # the log's length it extends
        args = [*head, key(code, "frames"), ANSWERS_KEPT, chained, len(entries), *entries]
        args += answer_args(replies)
        return keys, args

    def _own_subscriber(self, code: str) -> bool:
        """This process has sockets in the room (its messages come back to it)."""
        return isinstance(self._subscriber, Subscriber) and code in self._subscriber.rooms

    def _stored(self, code: str, result: Any, replies: Sequence[Reply]) -> bool:
        """What COMMIT's `result` means for the room and its answers: False when fenced."""
        if not result:
            self._forget_owned(code)
            return False
        self._await_answers(code, result, replies)
        self._committed[code] = time.monotonic()  # answers went out in the script…
        if replies and self._router is not None:  # …except on Redis Cluster: other slots
            # Sent with the next write, not awaited. A lost one is only counted: the
            # answer is durable in the room's answer stream (read by the pending table),
            # as a lost poke is covered by the owners' periodic re-read.
            self._router.publish_soon(
                [
                    (node_channel(r.node), b"R" + r.key.encode() + b"\n" + r.payload)
                    for r in replies
                ],
                self._on_error,
            )
        return True

    # -- one hop: the owner applies a local command at once (app/rooms/actor.py, `take`) --
    def idle(self, code: str) -> bool:
        """Whether the owner may apply a local socket's command now, without the inbox:
        no XADD of this process to the room on its way, nothing of the room waiting in
        its stream or being read (so nothing submitted before it is overtaken), the
        subscription up, and no replicas waited for (a held commit and its revert are
        told apart by the inbox cursor, which a command taken this way does not move)."""
        return (
            self._replicas.wanted == 0
            and code not in self._submitting
            and self._connected.is_set()
            and not self._inbox.busy(code)
        )

    def commit_soon(
        self,
        code: str,
        epoch: int,
        cursor: str,
        snapshot: bytes,
        entries: Sequence[bytes],
        frames: Sequence[Frame],
        replies: Sequence[Reply],
        logged: int | None,
        done: Committed,
    ) -> None:
        """`commit` without waiting: the commits of every room asked for in one turn of the
        loop are written together at the start of the next (one task, one write)."""
        args = (code, epoch, cursor, snapshot, entries, frames, replies, logged)
        self._soon.append((done, args))
        if len(self._soon) == 1:
            task = asyncio.get_running_loop().create_task(self._commit_group())
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _commit_group(self) -> None:
        group, self._soon = self._soon, []
        mux = self._mux
        results: list[Any]
        cancelled = None
        try:
            if isinstance(mux, Multiplexer):
                calls = [self._commit_call(*args) for _, args in group]
                script = self._commit_script
                results = await self._call(lambda: mux.scripts(script, calls))
            else:  # Redis Cluster: each room on its own slot's master
                commits = (self._commit_one(*args) for _, args in group)
                results = list(await asyncio.gather(*commits, return_exceptions=True))
        except BaseException as error:  # noqa: BLE001 - every caller hears how it ended
            failure = error if isinstance(error, Exception) else BusUnavailable("closed")
            results = [failure] * len(group)
            cancelled = None if isinstance(error, Exception) else error
        reset = False
        for (done, args), result in zip(group, results, strict=True):
            code, replies = args[0], args[6]
            if isinstance(result, BaseException):
                if not isinstance(result, BusUnavailable):
                    self._on_error()
                    reset = reset or not_primary(result)
                    result = BusUnavailable(str(result) or type(result).__name__)
                self._forget_owned(code)
                done(result)
            else:
                stored = (
                    self._stored(code, result, replies)
                    if isinstance(mux, Multiplexer)
                    else bool(result)  # `_commit_one` did the rest
                )
                done(None if stored else BusUnavailable(f"room {code}: commit fenced off"))
        if cancelled is not None:
            raise cancelled
        if reset and isinstance(mux, Multiplexer):
            await mux.reset("the primary refused a commit")

    async def _commit_confirmed(
        self,
        code: str,
        epoch: int,
        cursor: str,
        snapshot: bytes,
        entries: Sequence[bytes],
        message: bytes,
        replies: Sequence[Reply],
    ) -> bool:
        """Store, WAIT, then answer; or take the commit back (app/bus/redis/replicas.py)."""
        assert isinstance(self._mux, Multiplexer)
        mux, replicas = self._mux, self._replicas
        keys = [key(code, p) for p in ("lease", "snap", "log", "cursor", "cmds", "epoch", "keep")]
        before, previous = replicas.before.get(code, (None, None))
        if before is None or previous is None:  # not restored through this bus: unknown
            self._forget_owned(code)
            return False
        args = [self._lease(epoch), self.lease_ms, self.ttl_ms, snapshot, cursor, previous]
        args.append(len(entries))
        ttl, confirmed = await self._call(  # ttl: the room's (0: fenced)
            lambda: replicas.written(mux, COMMIT_HELD, keys, [*args, *entries])
        )
        if not ttl:
            self._forget_owned(code)
            return False
        if confirmed:
            self._committed[code] = time.monotonic()
            replicas.before[code] = (snapshot, cursor)
            room = (key(code, "tail"), key(code, "frames"), key(code, "answers"))
            replicas.published(mux, room, message, replies, int(ttl), ANSWERS_KEPT)
            return True
        # Not confirmed in time: take it back while the lease is ours, then say so.
        self._on_error()
        self._forget_owned(code)
        revert = [self._lease(epoch), before, len(entries), previous, cursor, ttl]
        undo_keys = keys[:5]
        with contextlib.suppress(BusUnavailable):
            if await self._call(lambda: mux.script(REVERT, undo_keys, revert)):
                await self._call(lambda: replicas.refused(mux, replies))
        await mux.reset("the replicas did not confirm a commit")  # ask Sentinel again
        return False

    # -- nodes (heartbeats, for dropping the presence a dead process left behind) -------
    async def heartbeat(self) -> None:
        alive = alive_key(self.node_id)
        await self._call(lambda: self._mux.execute("SET", alive, b"1", "PX", self.node_ttl_ms))

    async def live_nodes(self, nodes: Collection[str]) -> set[str]:
        return await live(self._many, nodes)

    async def unowned(self, codes: Collection[str]) -> list[str]:
        return await lapsed(self._many, codes)

    # -- fan-out ---------------------------------------------------------------------
    async def subscribe(self, code: str) -> None:
        """Return once the room's channel is subscribed (so no later frame is missed)."""
        await self._subscriber.subscribe(code)

    async def unsubscribe(self, code: str) -> None:
        await self._subscriber.unsubscribe(code)
        if self._own is not None:
            self._own.forget(code)

    async def recover_answers(self, code: str) -> int:
        """Hand on again this node's answers kept in the room's stream since the last read
        (app/bus/redis/answers.py): those pub/sub lost. The hub drops those it already had."""
        return await self._answers.recover(code)

    async def _many(self, commands: list[tuple[Any, ...]]) -> list[Any]:
        """Several commands written at once (the multiplexer pipelines them)."""

        async def run() -> list[Any]:
            return list(await asyncio.gather(*(self._mux.execute(*c) for c in commands)))

        return await self._call(run)
