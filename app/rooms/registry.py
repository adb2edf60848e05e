"""The rooms this process knows: creation, lookup, ownership and freeing idle rooms."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import orjson

from app.bus.base import Bus, DurableBus
from app.bus.shared import SharedBus
from app.config import Settings
from app.rooms.actor import RoomActor, now_ms
from app.rooms.room import Envelope, Room
from app.rooms.watcher import Watcher
from app.rules.bank import BankRules
from app.rules.base import RuleError, Rules

log = logging.getLogger("bankit.rooms")

CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I/L: read aloud across a table
CODE_LENGTH = 4


class UnknownRoom(Exception):
    pass


class RoomsFull(Exception):
    pass


def new_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


class RoomRegistry:
    def __init__(self, bus: Bus, settings: Settings) -> None:
        self.bus = bus
        self.settings = settings
        self.games: dict[str, Rules[Any]] = {"bank": BankRules(settings.max_players)}
        self.actors: dict[str, RoomActor] = {}
        self._reaper: asyncio.Task[None] | None = None
        # Several processes: the rooms with sockets here (set by the app), adopted by the
        # watcher when their owner dies; rooms another process owns are not claimed again
        # before `watch_seconds` (one claim per command would double Redis's work).
        self.interest: Callable[[], Iterable[str]] = tuple
        self._watcher: asyncio.Task[None] | None = None
        self._elsewhere: dict[str, float] = {}
        self.applied_retired = 0  # events applied by actors that have stopped (metrics)

    async def start(self) -> None:
        await self._adopt_stored()
        self._reaper = asyncio.create_task(self._reap_forever(), name="room-reaper")
        if isinstance(self.bus, SharedBus):
            self._watcher = asyncio.create_task(Watcher(self, self.bus).run(), name="room-watcher")

    async def close(self) -> None:
        if self._watcher is not None:
            self._watcher.cancel()
            await asyncio.gather(self._watcher, return_exceptions=True)
        if self._reaper is not None:
            self._reaper.cancel()
            await asyncio.gather(self._reaper, return_exceptions=True)
        await asyncio.gather(*(actor.stop() for actor in list(self.actors.values())))

    # -- rooms -----------------------------------------------------------------------
    async def create(self, options: Mapping[str, Any], banker_hash: str) -> dict[str, Any]:
        """Create a room owned by this process; returns its first state."""
        if len(self.actors) >= self.settings.max_rooms:
            raise RoomsFull()
        rules = self.games.get(str(options.get("game", "bank")))
        if rules is None:
            raise RuleError("unknown_game", "This server hosts: " + ", ".join(self.games))
        game_options = {k: v for k, v in options.items() if k != "game"}
        for _ in range(20):
            code = new_code()
            room, entry = Room.create(
                code, rules, game_options, banker_hash, now_ms(), self.settings.dedupe_ids
            )
            if await self.bus.create_room(code, room.snapshot(), orjson.dumps(entry)):
                break
        else:
            raise RoomsFull()
        await self._own(code)
        return room.view

    async def snapshot(self, code: str) -> dict[str, Any] | None:
        raw = await self.bus.load_snapshot(code)
        if raw is None:
            return None
        snapshot: dict[str, Any] = orjson.loads(raw)
        return snapshot

    async def log_entries(self, code: str) -> list[dict[str, Any]] | None:
        raw = await self.bus.load_log(code)
        return [orjson.loads(entry) for entry in raw] if raw else None

    async def submit(self, code: str, envelope: Envelope) -> None:
        """Queue a command in the room's single order; adopts the room if nobody owns it."""
        unclaimed = code not in self.actors
        if (
            unclaimed
            and time.monotonic() >= self._elsewhere.get(code, 0.0)
            and (await self._own(code) is None)
        ):
            if len(self._elsewhere) > 10_000:
                self._elsewhere.clear()
            self._elsewhere[code] = time.monotonic() + self.settings.watch_seconds
        try:
            await self.bus.submit(code, orjson.dumps(envelope))
        except KeyError:
            raise UnknownRoom(code) from None

    # -- ownership -------------------------------------------------------------------
    async def adopt(self, code: str) -> bool:
        """Take over a room nobody owns (the watcher's failover); False if someone does."""
        try:
            return await self._own(code) is not None
        except UnknownRoom:
            return False

    async def _own(self, code: str) -> RoomActor | None:
        """Become the room's owner if nobody is; restore it from its snapshot and log."""
        epoch = await self.bus.claim(code)
        if epoch is None:
            return None
        snapshot = await self.snapshot(code)
        entries = await self.log_entries(code)
        if snapshot is None or entries is None:
            await self.bus.release(code, epoch)
            raise UnknownRoom(code)
        rules = self.games[snapshot["state"]["game"]]
        room = Room.restore(rules, snapshot, entries, self.settings.dedupe_ids)
        cursor = await self.bus.load_cursor(code)
        shared = isinstance(self.bus, SharedBus)  # a lease to keep: renew at a third of it
        renew = self.settings.lease_seconds / 3 if shared else None
        actor = RoomActor(room, self.bus, epoch, cursor, renew, self._forget)
        self.actors[code] = actor
        actor.start()
        return actor

    async def _adopt_stored(self) -> None:
        """After a restart the rooms on disk are ours again; their old sockets are gone."""
        if not isinstance(self.bus, DurableBus):
            return
        for code in await self.bus.stored_rooms():
            try:
                actor = await self._own(code)
            except UnknownRoom:
                continue
            if actor is None:
                continue
            nodes = {node for counts in actor.room.presence.values() for node in counts}
            for node in nodes - {self.bus.node_id}:
                await self.bus.submit(code, orjson.dumps({"k": "drop_node", "node": node}))

    def _forget(self, actor: RoomActor) -> None:
        if self.actors.get(actor.code) is actor:
            del self.actors[actor.code]
            self.applied_retired += actor.applied

    # -- freeing idle rooms ------------------------------------------------------------
    async def _reap_forever(self) -> None:
        while True:
            await asyncio.sleep(self.settings.reap_interval_seconds)
            with contextlib.suppress(Exception):
                await self.reap()

    async def reap(self) -> list[str]:
        """Free rooms nobody plays in: no player connected and nothing done for a while."""
        now = time.time() * 1000
        freed = []
        for code, actor in list(self.actors.items()):
            room = actor.room
            limit = (
                self.settings.finished_room_seconds
                if room.status == "finished"
                else self.settings.room_idle_seconds
            )
            if room.any_player_connected() or now - room.updated_at < limit * 1000:
                continue
            await actor.stop()
            await self.bus.delete_room(code)
            freed.append(code)
            log.info("room %s freed after %.0f s idle", code, (now - room.updated_at) / 1000)
        return freed
