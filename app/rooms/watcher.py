"""Failover for several processes: adopt rooms whose owner died, forget its sockets.

Runs only with a shared backplane (`SharedBus`). Every `watch_seconds` it
- beats this process's heartbeat (every quarter of `node_ttl_seconds`);
- claims the rooms that have sockets here and whose lease lapsed (the owner died or
  stalled): the claim restores the snapshot and the commands after its cursor, so
  play goes on within a lease plus a tick of the kill;
- for the rooms this process owns, submits a `drop_node` command for each process
  counted in their presence that stopped beating, so its phones (which reconnect
  elsewhere) stop being shown as connected twice or forever. It waits until its own
  link to the backplane has been up for a whole `node_ttl_seconds`, so that an
  outage of Redis itself is not mistaken for the death of every other process.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Protocol

from app.bus.base import BusUnavailable
from app.bus.shared import SharedBus
from app.config import Settings
from app.rooms.envelope import DropNodeEnvelope, Envelope
from app.rooms.room import Room

log = logging.getLogger("bankit.rooms")

DROP_RETRY_SECONDS = 5.0


class Rooms(Protocol):
    """What the watcher needs of this process's rooms (the registry)."""

    def owned(self) -> list[tuple[str, Room]]: ...

    def unowned_interest(self) -> list[str]: ...

    async def adopt(self, code: str) -> bool: ...

    async def submit(self, code: str, envelope: Envelope) -> None: ...


class Watcher:
    def __init__(self, rooms: Rooms, bus: SharedBus, settings: Settings) -> None:
        self.rooms = rooms
        self.bus = bus
        self.settings = settings
        self._beat_at = 0.0
        self._dropped: dict[tuple[str, str], float] = {}

    async def run(self) -> None:
        while True:
            try:
                await self.tick()
            except BusUnavailable:
                pass
            except Exception:  # the watcher must outlive any bug in one pass
                log.exception("watcher pass failed")
            await asyncio.sleep(self.settings.watch_seconds)

    async def tick(self) -> None:
        now = time.monotonic()
        if now - self._beat_at >= self.settings.node_ttl_seconds / 4:
            await self.bus.heartbeat()
            self._beat_at = now
        await self.adopt_orphans()
        if self.bus.up_for >= self.settings.node_ttl_seconds:
            await self.drop_dead_nodes()

    async def adopt_orphans(self) -> list[str]:
        """Claim the rooms with sockets here that nobody owns any more."""
        adopted = []
        for code in await self.bus.unowned(self.rooms.unowned_interest()):
            if await self.rooms.adopt(code):
                adopted.append(code)
                log.info("room %s: adopted (its lease had lapsed)", code, extra={"room": code})
        return adopted

    async def drop_dead_nodes(self) -> None:
        rooms: dict[str, set[str]] = {}
        for code, room in self.rooms.owned():
            for counts in room.presence.values():
                for node in counts:
                    if node != self.bus.node_id:
                        rooms.setdefault(node, set()).add(code)
        if not rooms:
            self._dropped.clear()
            return
        dead = set(rooms) - await self.bus.live_nodes(rooms.keys())
        now = time.monotonic()
        for node in dead:
            for code in rooms[node]:
                if now - self._dropped.get((code, node), 0.0) < DROP_RETRY_SECONDS:
                    continue
                self._dropped[(code, node)] = now
                log.info(
                    "room %s: dropping the sockets of dead process %s",
                    code,
                    node,
                    extra={"room": code},
                )
                await self.rooms.submit(code, DropNodeEnvelope(node))
        self._dropped = {pair: at for pair, at in self._dropped.items() if now - at < 60}
