"""Shares counted across processes: one address gets its share once, however many there are.

A share (an address's sockets, a room's spectators…) is a hash `bankit:share:{<name>}`
of per-process counts (field: the process's node id) beside a sorted set of the same
nodes scored by when their counts lapse. `take` is one script: it drops the counts of
processes whose lease lapsed (a crashed process leaks nothing for longer than a lease),
sums the rest, and counts one in only under the limit, so that processes racing for
the last place cannot both win. Each process renews the lease of every share it holds
a third of the way (`node_ttl_seconds`), and with it its own count there (which heals a
give lost on the way, or counts a promotion lost). The clock is Redis's own (`TIME`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import Any

log = logging.getLogger("bankit.bus.redis")

TAKE = """
local now = redis.call('TIME')
local ms = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
for _, node in ipairs(redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', ms)) do
  redis.call('HDEL', KEYS[1], node)
end
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ms)
local total = 0
for _, count in ipairs(redis.call('HVALS', KEYS[1])) do total = total + tonumber(count) end
if total >= tonumber(ARGV[2]) then return 0 end
redis.call('HINCRBY', KEYS[1], ARGV[1], 1)
redis.call('ZADD', KEYS[2], ms + tonumber(ARGV[3]), ARGV[1])
redis.call('PEXPIRE', KEYS[1], 2 * ARGV[3])
redis.call('PEXPIRE', KEYS[2], 2 * ARGV[3])
return 1
"""

GIVE = """
if redis.call('HINCRBY', KEYS[1], ARGV[1], -1) <= 0 then redis.call('HDEL', KEYS[1], ARGV[1]) end
return 1
"""

# The process's own count is the truth: renewing restores it (a give lost on the way,
# a count lost with a promotion).
RENEW = """
local now = redis.call('TIME')
local ms = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
redis.call('ZADD', KEYS[2], ms + tonumber(ARGV[2]), ARGV[1])
redis.call('PEXPIRE', KEYS[1], 2 * ARGV[2])
redis.call('PEXPIRE', KEYS[2], 2 * ARGV[2])
return 1
"""

# Counted for good (a seat a join took): a counter under its limit, kept as long as a
# room is (its TTL), given back only when the route that took it failed.
COUNT = """
if tonumber(redis.call('GET', KEYS[1]) or '0') >= tonumber(ARGV[1]) then return 0 end
redis.call('INCR', KEYS[1])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1
"""

UNCOUNT = """
if tonumber(redis.call('GET', KEYS[1]) or '0') > 0 then redis.call('DECR', KEYS[1]) end
return 1
"""

Script = Callable[[str, list[Any], list[Any]], Awaitable[Any]]


def _keys(name: str) -> list[Any]:
    return [f"bankit:share:{{{name}}}", f"bankit:share:{{{name}}}:lease"]


def _counter(name: str) -> str:
    return f"bankit:share:{{{name}}}:count"


class RedisTally:
    """Named shares counted in Redis by every process together: `take`/`give` for what a
    process holds while it lives (sockets), `count`/`uncount` for what is kept (seats)."""

    def __init__(
        self, node: str, script: Script, lease_seconds: float, kept_seconds: float
    ) -> None:
        self._node = node
        self._script = script
        self._lease_ms = int(lease_seconds * 1000)
        self._kept_ms = int(kept_seconds * 1000)
        self._held: dict[str, int] = {}  # what this process holds, renewed while it lives
        self._renewer: asyncio.Task[None] | None = None

    async def take(self, name: str, limit: int) -> bool:
        """Count one in under `limit` (all processes together); False: the share is full."""
        taken = bool(await self._script(TAKE, _keys(name), [self._node, limit, self._lease_ms]))
        if taken:
            self._held[name] = self._held.get(name, 0) + 1
            if self._renewer is None or self._renewer.done():
                self._renewer = asyncio.create_task(self._renew_forever(), name="share-renewer")
        return taken

    def give(self, name: str) -> None:
        """Give one back (in the background: a lost give lapses with this process's lease
        only if the process dies; otherwise the next renewal keeps the count honest)."""
        held = self._held.get(name, 0)
        if held <= 0:
            return
        if held == 1:
            del self._held[name]
        else:
            self._held[name] = held - 1
        task = asyncio.get_running_loop().create_task(self._give(name))
        task.add_done_callback(lambda _: None)

    async def _give(self, name: str) -> None:
        with contextlib.suppress(Exception):  # the next renewal puts the count right
            await self._script(GIVE, _keys(name), [self._node])

    async def count(self, name: str, limit: int) -> bool:
        """Count one in for good (all processes together); False: the share is full."""
        return bool(await self._script(COUNT, [_counter(name)], [limit, self._kept_ms]))

    def uncount(self, name: str) -> None:
        """Give back what `count` took (the work it was taken for failed)."""

        async def uncount() -> None:
            with contextlib.suppress(Exception):  # lost: the count lapses with its TTL
                await self._script(UNCOUNT, [_counter(name)], [])

        asyncio.get_running_loop().create_task(uncount())

    async def _renew_forever(self) -> None:
        while self._held:
            await asyncio.sleep(self._lease_ms / 3000)
            renewals = [
                self._script(RENEW, _keys(name), [self._node, self._lease_ms, count])
                for name, count in list(self._held.items())
            ]
            failed = await asyncio.gather(*renewals, return_exceptions=True)
            if any(isinstance(result, BaseException) for result in failed):
                log.debug("shares: a renewal failed; the next round tries again")

    def close(self) -> None:
        if self._renewer is not None:
            self._renewer.cancel()
