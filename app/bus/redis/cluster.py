"""Redis Cluster routing: one multiplexer per master, each command sent to its slot's master.

The slot map comes from `CLUSTER SLOTS` (at the first command, after a `MOVED`, and,
in the background, after a connection failure: a master may have failed over). Each
command goes to the master of its key's slot (`redis.crc.key_slot`; every room key
carries `{CODE}`, so a room's script has one slot), through that master's own
`Multiplexer` (app/bus/redis/mux.py): automatic pipelining, per node.

A `MOVED` refreshes the map; an idempotent command (a read, a publish, a heartbeat) is
then sent once more, to the new master. Scripts (submit, commit, claim) and anything
else that must not run twice are never retried here: they fail as a connection error,
which the bus turns into `BusUnavailable` (the pending table re-submits with the same
id; an actor that cannot commit steps down). `ASK`, `TRYAGAIN` and `CLUSTERDOWN` (a
slot being migrated, a cluster without quorum) fail the same way.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import urlsplit

from redis.asyncio import ConnectionPool
from redis.crc import REDIS_CLUSTER_HASH_SLOTS, key_slot
from redis.exceptions import AskError, ClusterDownError, MovedError, TryAgainError
from redis.exceptions import ConnectionError as RedisConnectionError

from app.bus.redis.mux import Multiplexer

SCHEME = "redis+cluster://"
IDEMPOTENT = frozenset({"GET", "EXISTS", "LRANGE", "XRANGE", "XREAD", "SPUBLISH", "SET", "DEL"})
REFRESH_EVERY = 0.5  # seconds: the least time between two background map refreshes
MGET_CHUNK = 500


def cluster_seeds(url: str) -> tuple[str, list[tuple[str, int]]]:
    """`redis+cluster://[auth@]h:p,h:p` (or a plain `redis://h:p`): a plain URL to the
    first node (for the connection settings) and every seed node."""
    rest = url.split("://", 1)[1]
    auth, _, hosts = rest.rpartition("@")
    hosts = hosts.split("/", 1)[0]
    seeds = []
    for host in hosts.split(","):
        parts = urlsplit("//" + host)
        seeds.append((parts.hostname or "127.0.0.1", parts.port or 6379))
    first = f"{seeds[0][0]}:{seeds[0][1]}"
    return "redis://" + (auth + "@" if auth else "") + first, seeds


def slot_of(key: str | bytes) -> int:
    return key_slot(key.encode() if isinstance(key, str) else key)


class ClusterRouter:
    """The `Multiplexer` interface (`execute`, `script`, `close`) over every master."""

    def __init__(self, seeds: list[tuple[str, int]], base: ConnectionPool, timeout: float):
        self._seeds = [f"{host}:{port}" for host, port in seeds]
        self._base = base
        self._timeout = timeout
        self._slots: list[str] = []  # master address per slot; empty until the map is read
        self._muxes: dict[str, Multiplexer] = {}
        self._pools: dict[str, ConnectionPool] = {}
        self._refreshing: asyncio.Lock = asyncio.Lock()
        self._refreshed_at = 0.0
        self._version = 0  # bumped at each map read: callers that queued for one share it
        self._background: set[asyncio.Future[Any]] = set()

    # -- the map ------------------------------------------------------------------------
    def pool(self, address: str) -> ConnectionPool:
        """Connection settings for one node (its multiplexer's, and its subscriber's)."""
        pool = self._pools.get(address)
        if pool is None:
            host, _, port = address.rpartition(":")
            kwargs = {**self._base.connection_kwargs, "host": host, "port": int(port)}
            pool = ConnectionPool(connection_class=self._base.connection_class, **kwargs)
            self._pools[address] = pool
        return pool

    def _mux(self, address: str) -> Multiplexer:
        mux = self._muxes.get(address)
        if mux is None:
            mux = self._muxes[address] = Multiplexer(self.pool(address), self._timeout)
        return mux

    @property
    def masters(self) -> list[str]:
        """Every master's `host:port`, in slot order (empty until the map is read)."""
        return list(dict.fromkeys(self._slots))

    def master_of(self, key: str | bytes) -> str:
        return self._slots[slot_of(key)]

    async def refresh(self) -> None:
        """Read the slot map from a known master (or a seed), whichever answers first."""
        version = self._version
        async with self._refreshing:
            if self._version != version and self._slots:
                return  # read while this caller waited
            error: Exception = RedisConnectionError("no cluster node answered")
            for address in dict.fromkeys([*self.masters, *self._seeds]):
                try:
                    reply = await self._mux(address).execute("CLUSTER", "SLOTS")
                except Exception as failure:  # noqa: BLE001 - try the next node
                    error = failure
                    continue
                slots = [""] * REDIS_CLUSTER_HASH_SLOTS
                for first, last, master, *_ in reply:
                    host = master[0].decode() or address.rpartition(":")[0]
                    slots[first : last + 1] = [f"{host}:{master[1]}"] * (last - first + 1)
                if "" in slots:
                    error = ClusterDownError("some slots have no master")
                    continue
                self._slots = slots
                self._version += 1
                self._refreshed_at = time.monotonic()
                for gone in set(self._muxes) - set(slots) - set(self._seeds):
                    await self._muxes.pop(gone).close()
                return
            raise RedisConnectionError(f"no slot map: {error}") from error

    def _refresh_soon(self) -> None:
        if time.monotonic() - self._refreshed_at < REFRESH_EVERY or self._refreshing.locked():
            return
        self._refreshed_at = time.monotonic()
        task = asyncio.get_running_loop().create_task(self._quiet_refresh())
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def _quiet_refresh(self) -> None:
        with contextlib.suppress(Exception):
            await self.refresh()

    # -- commands -----------------------------------------------------------------------
    async def execute(self, *args: Any) -> Any:
        name = args[0]
        if name == "MGET":
            return await self._mget(args[1:])
        if name == "PING":
            return await self._ping_all()
        routing = args[args.index("STREAMS") + 1] if name == "XREAD" else args[1]
        return await self._on(slot_of(routing), lambda mux: mux.execute(*args), name in IDEMPOTENT)

    async def script(self, body: str, keys: list[Any], args: list[Any]) -> Any:
        return await self._on(slot_of(keys[0]), lambda mux: mux.script(body, keys, args), False)

    def publish_soon(self, messages: list[tuple[str, bytes]], on_error: Callable[[], None]) -> None:
        """SPUBLISH each message to its channel's master without waiting for the replies
        (at most once, like any pub/sub message; `on_error` counts a failure)."""

        def settled(future: asyncio.Future[Any]) -> None:
            if future.cancelled() or future.exception() is not None:
                on_error()

        for channel, data in messages:
            address = self._slots[slot_of(channel)] if self._slots else self._seeds[0]
            mux = self._mux(address)
            future = mux.post("SPUBLISH", channel, data)
            if future is None:  # not connected yet: connect, in the background
                future = asyncio.ensure_future(mux.execute("SPUBLISH", channel, data))
                self._background.add(future)
                future.add_done_callback(self._background.discard)
            future.add_done_callback(settled)

    async def close(self) -> None:
        for task in list(self._background):
            task.cancel()
        for mux in list(self._muxes.values()):
            await mux.close()

    async def _on(
        self, slot: int, call: Callable[[Multiplexer], Awaitable[Any]], idempotent: bool
    ) -> Any:
        if not self._slots:
            await self.refresh()
        try:
            return await call(self._mux(self._slots[slot]))
        except MovedError:
            await self.refresh()
            if not idempotent:
                raise RedisConnectionError("the slot moved; not retried") from None
        except (AskError, TryAgainError, ClusterDownError) as error:
            raise RedisConnectionError(f"cluster: {error}") from error
        except RedisConnectionError:
            self._refresh_soon()
            raise
        try:
            return await call(self._mux(self._slots[slot]))
        except (MovedError, AskError, TryAgainError, ClusterDownError) as error:
            raise RedisConnectionError(f"cluster: {error}") from error

    async def _mget(self, keys: tuple[Any, ...]) -> list[Any]:
        """MGET across slots: one MGET per slot (pipelined per master), in the keys' order."""
        by_slot: dict[int, list[int]] = {}
        for index, item in enumerate(keys):
            by_slot.setdefault(slot_of(item), []).append(index)
        groups = [
            (slot, indexes[at : at + MGET_CHUNK])
            for slot, indexes in by_slot.items()
            for at in range(0, len(indexes), MGET_CHUNK)
        ]

        def read(indexes: list[int]) -> Callable[[Multiplexer], Awaitable[Any]]:
            return lambda mux: mux.execute("MGET", *(keys[i] for i in indexes))

        replies = await asyncio.gather(*(self._on(s, read(ix), True) for s, ix in groups))
        values: list[Any] = [None] * len(keys)
        for (_, indexes), reply in zip(groups, replies, strict=True):
            for index, value in zip(indexes, reply, strict=True):
                values[index] = value
        return values

    async def _ping_all(self) -> bytes:
        """PONG when every master answers (a room on any of them may be needed)."""
        if not self._slots:
            await self.refresh()
        replies = await asyncio.gather(*(self._mux(a).execute("PING") for a in self.masters))
        return b"PONG" if all(reply == b"PONG" for reply in replies) else b"NO"
