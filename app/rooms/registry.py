"""The rooms this process knows: creation, lookup, ownership and freeing idle rooms."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import secrets
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import orjson

from app.bus.base import Bus, DurableBus, Journal, QuickCommit
from app.bus.shared import SharedBus
from app.config import Settings
from app.games.registry import Game, GameRegistry
from app.rooms import envelope as envelopes
from app.rooms.actor import RoomActor, now_ms
from app.rooms.effects import Effects
from app.rooms.policy import RoomPolicy
from app.rooms.room import Room
from app.rooms.watcher import Watcher

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
    def __init__(self, bus: Bus, settings: Settings, games: GameRegistry) -> None:
        self.bus = bus
        self.settings = settings
        self.games = games
        self.effects = Effects()  # handlers registered at start-up (rooms/spawning.py)
        self.actors: dict[str, RoomActor] = {}
        self._reaper: asyncio.Task[None] | None = None
        # Several processes: the rooms with sockets here (set by the app), adopted by the
        # watcher when their owner dies; rooms another process owns are not claimed again
        # before `watch_seconds` (one claim per command would double Redis's work).
        self.interest: Callable[[], Iterable[str]] = tuple
        self._watcher: asyncio.Task[None] | None = None
        self._elsewhere: dict[str, float] = {}
        self.applied_retired = 0  # events applied by actors that have stopped (metrics)
        self._shared = isinstance(bus, SharedBus)  # leases: the bus keeps its owners'
        self._evicts = isinstance(bus, DurableBus) and not self._shared  # rooms wait on disk
        self._journal = bus if isinstance(bus, Journal) else None  # snapshots now and then
        # Redis: an owner's local commands skip the room's stream when it is empty.
        self._quick = bus if isinstance(bus, QuickCommit) and self._journal is None else None
        # Rooms waiting on disk: (last event ms, finished, game) as they left memory (or as
        # stored, for those left on disk at start), so that the reaper sweeps them
        # without reading the store.
        self._waiting: dict[str, tuple[float, bool, str]] = {}
        self.stored = 0  # rooms on this process's disk (one process): the disk's cap

    async def start(self) -> None:
        if self._evicts:
            self.stored = len(await self._store().stored_rooms())
        await self._adopt_stored()
        self._reaper = asyncio.create_task(self._reap_forever(), name="room-reaper")
        if isinstance(self.bus, SharedBus):
            watcher = Watcher(self, self.bus, self.settings)
            self._watcher = asyncio.create_task(watcher.run(), name="room-watcher")

    async def close(self) -> None:
        if self._watcher is not None:
            self._watcher.cancel()
            await asyncio.gather(self._watcher, return_exceptions=True)
        if self._reaper is not None:
            self._reaper.cancel()
            await asyncio.gather(self._reaper, return_exceptions=True)
        await asyncio.gather(*(actor.stop() for actor in list(self.actors.values())))

    # -- rooms -----------------------------------------------------------------------
    async def create(
        self,
        game: Game,
        options: Mapping[str, Any],
        creator_hashes: Sequence[str],
        *,
        codes: Iterable[str] | None = None,
        origin: str | None = None,
        parent: str | None = None,
        tokens: Mapping[str, str] | None = None,
    ) -> dict[str, Any]:
        """Create a room of `game` owned by this process; returns its first state.

        `codes`: the codes to try in order (random ones by default); `origin`: the
        effect creating it, so that a second try finds the room it made the first time;
        `parent`: the room it reports to; `tokens`: more tokens it binds from its first record
        (token hash -> a seated player's id, or a spectator's role)."""
        if self._evicts and self.stored >= self.settings.max_stored_rooms:
            raise RoomsFull()
        if not await self._room_for_one_more():
            raise RoomsFull()
        for code in itertools.islice(codes or (new_code() for _ in iter(int, 1)), 20):
            room, entry = Room.create(
                code,
                game,
                options,
                creator_hashes,
                now_ms(),
                self.settings.dedupe_ids,
                origin,
                parent,
                RoomPolicy.of(self.settings),
            )
            room.tokens = {**(tokens or {}), **room.tokens}
            record = room.snapshot(with_view=self._journal is None)  # journaled: no views
            if await self.bus.create_room(code, record, orjson.dumps(entry), game.keep_seconds):
                self.stored += 1
                await self._own(code)
                return room.view
            if origin is not None:
                existing = await self.snapshot(code)
                if existing is not None and existing.get("origin") == origin:
                    return dict(existing["state"])  # made by an earlier try of this effect
        raise RoomsFull()

    async def snapshot(self, code: str) -> dict[str, Any] | None:
        """The room's last committed record, its view (`state`) included.

        One process stores no views (the largest part of a record, written at every
        event): its rooms answer from memory (one waiting on disk is brought back
        first); a room it cannot own is rebuilt from its log to answer."""
        actor = None if self._shared else await self._live(code)
        if actor is not None:
            live: dict[str, Any] = orjson.loads(await actor.snapshot())
            return live
        raw = await self.bus.load_snapshot(code)
        if raw is None:
            return None
        snapshot: dict[str, Any] = orjson.loads(raw)
        if "state" not in snapshot:
            room = await self._restore(code, snapshot)
            if room is None:
                return None
            restored: dict[str, Any] = orjson.loads(room.snapshot())
            return restored
        return snapshot

    async def _restore(self, code: str, snapshot: dict[str, Any]) -> Room | None:
        """The room from its stored snapshot and log (and, journaled, the notes of the
        events after the snapshot); None when its log is gone."""
        notes: list[dict[str, Any]] = []
        if self._journal is not None:
            covered, rows = await self._journal.load_journal(code)
            entries = [orjson.loads(entry) for entry, _ in rows]
            notes = [orjson.loads(note or b"{}") for _, note in rows[covered:]]
        else:
            entries = await self.log_entries(code) or []
        if not entries:
            return None
        game = self.games[snapshot["game"]]
        policy = RoomPolicy.of(self.settings)
        return Room.restore(game, snapshot, entries, self.settings.dedupe_ids, notes, policy)

    async def exists(self, code: str) -> bool:
        """The room is live here or stored (not yet freed), without loading it."""
        return code in self.actors or await self.bus.load_snapshot(code) is not None

    async def _live(self, code: str) -> RoomActor | None:
        """One process: the room's actor, a room kept on disk brought back into memory
        (when the cap on rooms in memory lets it: else None, and it is read from disk)."""
        actor = self.actors.get(code)
        if actor is None and self._evicts and await self._room_for_one_more():
            with contextlib.suppress(UnknownRoom):
                actor = await self._own(code)
        return actor

    async def log_entries(self, code: str) -> list[dict[str, Any]] | None:
        raw = await self.bus.load_log(code)
        return [orjson.loads(entry) for entry in raw] if raw else None

    async def submit(self, code: str, envelope: envelopes.Envelope) -> None:
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
            await self.bus.submit(code, envelopes.encode(envelope))
        except KeyError:
            raise UnknownRoom(code) from None

    def submit_nowait(self, code: str, envelope: envelopes.Envelope) -> bool:
        """`submit` at once when this process runs the room and holds its inbox (one
        process: no I/O, no task switch); False when it takes `submit`."""
        actor = self.actors.get(code)
        if actor is None:
            return False
        if actor.take(envelope):  # one hop: applied now, written with this turn's commit
            return True
        try:
            return self.bus.submit_nowait(code, envelopes.encode(envelope))
        except KeyError:
            raise UnknownRoom(code) from None

    # -- what the watcher needs (rooms/watcher.py) -------------------------------------------
    def owned(self) -> list[tuple[str, Room]]:
        """The rooms this process applies commands for."""
        return [(code, actor.room) for code, actor in self.actors.items()]

    def unowned_interest(self) -> list[str]:
        """Rooms with sockets here that this process does not own."""
        return [code for code in self.interest() if code not in self.actors]

    # -- ownership -------------------------------------------------------------------
    async def adopt(self, code: str) -> bool:
        """Take over a room nobody owns (the watcher's failover); False if someone does."""
        try:
            return await self._own(code) is not None
        except UnknownRoom:
            return False

    async def _room_for_one_more(self) -> bool:
        """Whether `max_rooms` lets one more room into memory. One process makes way:
        the longest-idle room with nobody playing waits on disk again (as the reaper
        would leave it); elsewhere (Redis) a full process takes no more rooms."""
        if len(self.actors) < self.settings.max_rooms:
            return True
        if not self._evicts:
            return False
        idle = [
            actor
            for actor in self.actors.values()
            if actor.waiting
            and not actor.room.any_player_connected()
            and self._store().queued(actor.code) == 0
        ]
        if not idle:
            return False
        await self._evict(min(idle, key=lambda actor: actor.room.updated_at))
        return len(self.actors) < self.settings.max_rooms

    async def _evict(self, actor: RoomActor) -> None:
        """Out of memory, to wait on disk; the reaper's sweep knows it from here."""
        await actor.stop()
        room = actor.room
        self._waiting[actor.code] = (room.updated_at, room.finished, room.game.name)

    async def _own(self, code: str) -> RoomActor | None:
        """Become the room's owner if nobody is; restore it from its snapshot and log.
        None when someone else owns it, or when the cap on rooms leaves no room."""
        if code not in self.actors and not await self._room_for_one_more():
            return None
        epoch = await self.bus.claim(code)
        if epoch is None:
            return None
        raw = await self.bus.load_snapshot(code)
        room = None if raw is None else await self._restore(code, orjson.loads(raw))
        if room is None:
            await self.bus.release(code, epoch)
            raise UnknownRoom(code)
        cursor = await self.bus.load_cursor(code)
        logged = None if self._quick is None else await self._quick.log_length(code)
        actor = RoomActor(
            room,
            self.bus,
            epoch,
            cursor,
            self.bus if isinstance(self.bus, SharedBus) else None,
            self._forget,
            self.effects,
            store_views=self._shared,
            journal=self._journal,
            quick=self._quick,
            logged=logged,
        )
        self.actors[code] = actor
        self._waiting.pop(code, None)
        actor.start()
        if self._evicts:
            await self._drop_old_sockets(actor)
        return actor

    async def _adopt_stored(self) -> None:
        """After a restart the rooms on disk are ours again: as many as `max_rooms`
        come into memory; the others wait on disk until asked for."""
        if not isinstance(self.bus, DurableBus):
            return
        for code in await self.bus.stored_rooms():
            if len(self.actors) < self.settings.max_rooms:
                with contextlib.suppress(UnknownRoom):
                    await self._own(code)
            elif self._evicts:  # the reaper's sweep knows it from its stored record
                raw = await self.bus.load_snapshot(code)
                if raw is not None:
                    record = orjson.loads(raw)
                    finished = record.get("finished", False)
                    self._waiting[code] = (record["updated_at"], finished, record["game"])

    async def _drop_old_sockets(self, actor: RoomActor) -> None:
        """One process: presence another node counted is from before a restart (its
        sockets are gone), whenever the room comes back into memory."""
        nodes = {node for counts in actor.room.presence.values() for node in counts}
        for node in nodes - {self.bus.node_id}:
            envelope = envelopes.DropNodeEnvelope(node)
            await self.bus.submit(actor.code, envelopes.encode(envelope))

    def _forget(self, actor: RoomActor) -> None:
        if self.actors.get(actor.code) is actor:
            del self.actors[actor.code]
            self.applied_retired += actor.applied

    # -- freeing idle rooms ------------------------------------------------------------
    async def free(self, code: str) -> None:
        """Delete a room now, snapshot and log (a group member's card when they leave)."""
        actor = self.actors.get(code)
        if actor is not None:
            await actor.stop()
            self._forget(actor)
        self._waiting.pop(code, None)
        if await self.bus.load_snapshot(code) is not None:
            await self.bus.delete_room(code)
            self.stored -= 1

    async def _reap_forever(self) -> None:
        while True:
            await asyncio.sleep(self.settings.reap_interval_seconds)
            with contextlib.suppress(Exception):
                await self.reap()

    async def reap(self) -> list[str]:
        """Free rooms nobody plays in: no player connected and nothing done for a while.

        One process also takes rooms out of memory after `room_evict_seconds` without
        a player (they wait on disk until asked for), and frees the ones on disk."""
        now = time.time() * 1000
        freed = []
        for code, actor in list(self.actors.items()):
            room = actor.room
            if room.any_player_connected():
                continue
            idle_ms = now - room.updated_at
            if idle_ms >= self._kept_ms(room.finished, room.game.name):
                await actor.stop()
                await self.bus.delete_room(code)
                self.stored -= 1  # (counted where it matters: one process)
                freed.append(code)
                log.info("room %s freed after %.0f s idle", code, idle_ms / 1000)
            elif (
                self._evicts
                and idle_ms >= self.settings.room_evict_seconds * 1000
                and actor.waiting
                and self._store().queued(code) == 0  # stopping it now cuts nothing short
            ):
                await self._evict(actor)
        if self._evicts:
            freed.extend(await self._reap_stored(now))
        return freed

    def _store(self) -> DurableBus:
        assert isinstance(self.bus, DurableBus)  # only where `_evicts`
        return self.bus

    def _kept_ms(self, finished: bool, game: str) -> float:
        """How long a room is kept idle: its game's own time (a group's), else the rooms'."""
        bundle = self.games.get(game)
        if bundle is not None and bundle.keep_seconds is not None:
            return bundle.keep_seconds * 1000
        settings = self.settings
        return (settings.finished_room_seconds if finished else settings.room_idle_seconds) * 1000

    async def _reap_stored(self, now: float) -> list[str]:
        """Free the rooms waiting on disk whose time is up (from what they were as they
        left memory: no read of the store, no stall of the loop with thousands)."""
        freed = []
        for code, (updated_at, finished, game) in list(self._waiting.items()):
            if code in self.actors:  # back in memory (it is forgotten here when it leaves)
                continue
            idle_ms = now - updated_at
            if idle_ms >= self._kept_ms(finished, game):
                del self._waiting[code]
                await self.bus.delete_room(code)
                self.stored -= 1
                freed.append(code)
                log.info("room %s freed from disk after %.0f s idle", code, idle_ms / 1000)
        return freed
