"""Sharded pub/sub on Redis Cluster: one subscriber connection per master.

`SSUBSCRIBE` must go to the master that owns the channel's slot, so each master gets
its own `Subscriber` (app/bus/redis/subscriber.py, sharded mode) with the channels
of its slots: the frames of the rooms with sockets here whose slot it holds, and, on
one of them, this process's node channel (answers, pokes). Each reconnects on its
own and replays its own rooms' tails; only the node channel's master, when it comes
back, wakes the owners and seeks lost answers (`on_restored`). The bus is up when
every master's subscriber is.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable

from app.bus.base import BusUnavailable, FrameHandler, ReplyHandler
from app.bus.redis.cluster import ClusterRouter
from app.bus.redis.subscriber import BACKOFF_CAP, BACKOFF_FIRST, Many, Subscriber
from app.bus.redis.wire import key


class AllConnected:
    """Set while every master's subscriber is connected (the `asyncio.Event` API used)."""

    def __init__(self, shards: Callable[[], list[Subscriber]], started: asyncio.Event) -> None:
        self._shards = shards
        self._started = started

    def is_set(self) -> bool:
        return self._started.is_set() and all(s.connected.is_set() for s in self._shards())

    async def wait(self) -> None:
        await self._started.wait()
        while not self.is_set():
            for shard in self._shards():
                await shard.connected.wait()


class ShardedSubscriber:
    def __init__(
        self,
        router: ClusterRouter,
        channel: str,
        many: Many,
        on_poke: Callable[[str], None],
        on_restored: Callable[[], None],
        on_error: Callable[[], None],
        on_fanout: Callable[[float], None] | None,
    ) -> None:
        self._router = router
        self._channel = channel
        self._make: Callable[[str, bool], Subscriber] = lambda address, home: Subscriber(
            router.pool(address),
            channel if home else None,
            many,
            on_poke=on_poke,
            on_restored=on_restored if home else lambda: None,
            on_error=on_error,
            on_fanout=on_fanout,
            sharded=True,
        )
        self._on_error = on_error
        self._shards: dict[str, Subscriber] = {}
        self._home: Subscriber | None = None  # the one with the node channel
        self._started = asyncio.Event()
        self.connected = AllConnected(lambda: list(self._shards.values()), self._started)
        self._on_frame: FrameHandler | None = None
        self._on_reply: ReplyHandler | None = None

    # -- what the bus reads and sets ------------------------------------------------------
    @property
    def on_frame(self) -> FrameHandler | None:
        return self._on_frame

    @on_frame.setter
    def on_frame(self, handler: FrameHandler | None) -> None:
        self._on_frame = handler
        for shard in self._shards.values():
            shard.on_frame = handler

    @property
    def on_reply(self) -> ReplyHandler | None:
        return self._on_reply

    @on_reply.setter
    def on_reply(self, handler: ReplyHandler | None) -> None:
        self._on_reply = handler
        for shard in self._shards.values():
            shard.on_reply = handler

    @property
    def generation(self) -> int:
        """Pokes come on the node channel: its reconnects are the ones that lose them."""
        return self._home.generation if self._home else 0

    @property
    def up_since(self) -> float:
        return max((s.up_since for s in self._shards.values()), default=0.0)

    # -- rooms -------------------------------------------------------------------------
    async def _shard_of(self, code: str) -> Subscriber:
        try:
            async with asyncio.timeout(2):
                await self._started.wait()
        except TimeoutError:
            self._on_error()
            raise BusUnavailable("no cluster slot map yet") from None
        return self._shards[self._router.master_of(key(code, "frames"))]

    async def subscribe(self, code: str) -> None:
        await (await self._shard_of(code)).subscribe(code)

    async def unsubscribe(self, code: str) -> None:
        await (await self._shard_of(code)).unsubscribe(code)

    # -- the connections -----------------------------------------------------------------
    async def listen_forever(self) -> None:
        backoff = BACKOFF_FIRST
        while True:  # the slot map first (the cluster may be starting)
            try:
                await self._router.refresh()
                break
            except Exception:  # noqa: BLE001 - keep trying, as a lost subscription does
                self._on_error()
                await asyncio.sleep(backoff)
                backoff = min(backoff * 2, BACKOFF_CAP)
        home = self._router.master_of(self._channel)
        for address in self._router.masters:
            shard = self._make(address, address == home)
            shard.on_frame, shard.on_reply = self._on_frame, self._on_reply
            self._shards[address] = shard
        self._home = self._shards[home]
        self._started.set()
        tasks = [
            asyncio.create_task(shard.listen_forever(), name=f"redis-subscriber-{address}")
            for address, shard in self._shards.items()
        ]
        try:
            await asyncio.gather(*tasks)
        finally:
            for task in tasks:
                task.cancel()
            with contextlib.suppress(BaseException):
                await asyncio.gather(*tasks, return_exceptions=True)
