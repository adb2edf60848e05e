"""The room actor: the one owner in the deployment that applies a room's commands.

It reads the room's ordered inbox from the bus, applies each envelope to the `Room`,
commits the snapshot, the log entries, the inbox cursor and the answers in one fenced
write (the bus publishes the frames and delivers the answers only once it is stored),
and then carries out the effects the commit recorded. When a commit is refused
(another process owns the room now) or the bus fails, the task stops and drops its
in-memory copy.

The owner takes a local socket's command in one hop (`take`): when nothing is before
it (the inbox empty, no write or effect of the room in flight) it is applied in the
loop turn it arrived in, without queueing it or waking the task, and its write joins
that turn's group commit (one process's SQLite) or pipeline (Redis, where the command
then never enters the room's stream); the task applies the rest.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import orjson

from app.bus.base import Bus, BusUnavailable, Frame, Journal, QuickCommit, Reply
from app.bus.shared import SharedBus
from app.games.seam import Chance, Effect
from app.rooms import envelope as envelopes
from app.rooms import outgoing
from app.rooms.effects import Effects, Source
from app.rooms.envelope import CommandEnvelope
from app.rooms.room import Outcome, Room

log = logging.getLogger("bankit.actor")

SNAPSHOT_EVERY = 100  # events between two snapshots of a journaled room (and when it stops)


def now_ms() -> int:
    return int(time.time() * 1000)


class InFlight:
    """A batch between its handling and its commit: whether it was stored (None: not yet),
    with a future made only for someone who waits for it (most batches have nobody)."""

    __slots__ = ("_waiter", "stored")

    def __init__(self) -> None:
        self.stored: bool | None = None
        self._waiter: asyncio.Future[bool] | None = None

    def settle(self, stored: bool) -> None:
        self.stored = stored
        if self._waiter is not None and not self._waiter.done():
            self._waiter.set_result(stored)

    async def wait(self) -> bool:
        """Whether it was stored, once it is known (cancelling the wait leaves it be)."""
        if self.stored is not None:
            return self.stored
        if self._waiter is None:
            self._waiter = asyncio.get_running_loop().create_future()
        return await asyncio.shield(self._waiter)


@dataclass(slots=True)
class Applied:
    """What a batch of envelopes did, to be written in one go."""

    entries: list[bytes] = field(default_factory=list)
    notes: list[bytes] = field(default_factory=list)
    frames: list[Frame] = field(default_factory=list)
    replies: list[Reply] = field(default_factory=list)
    effects: list[Effect] = field(default_factory=list)


class RoomActor:
    def __init__(
        self,
        room: Room,
        bus: Bus,
        epoch: int,
        cursor: str,
        leases: SharedBus | None,
        on_exit: Callable[[RoomActor], None],
        effects: Effects | None = None,
        chance: Chance | None = None,
        store_views: bool = True,
        journal: Journal | None = None,
        quick: QuickCommit | None = None,
        logged: int | None = None,
    ) -> None:
        self.room = room
        # Redis: the owner's socket commands skip the inbox when nothing waits in it.
        self.quick = quick if journal is None else None
        # A journal (one process's SQLite): events with their notes, the snapshot now
        # and then; `_unsaved`: events and changes since the stored snapshot.
        self.journal = journal
        self._unsaved = 0
        self.store_views = store_views  # False: one process, whose readers ask `snapshot`
        # The last committed record and its view. Journaled, the record is made only
        # when someone reads it (None: the room as it stands is what was committed).
        self._stored: bytes | None = None if journal else room.snapshot(with_view=store_views)
        self._view = room.rendering  # its JSON made when read
        self._applying: InFlight | None = None  # a batch between handle and commit
        # Redis: the room's log length as the last commit sent leaves it (None: unknown),
        # the commands taken whose commits are on their way, and whether one of them
        # carries effects; commits sent and the last one stored, by number.
        self.logged = logged
        self._taking = 0
        self._held = False
        self._sent = self._stored_number = 0
        self.bus = bus
        self.epoch = epoch
        self.cursor = cursor
        self.leases = leases  # None: the room is this process's alone (no lease lapses)
        self._lost: str | None = None  # why the lease went (the keeper says so)
        self.on_exit = on_exit
        self.effects = effects or Effects()
        self.chance = chance  # None: the room's own (its fair dice, or the OS's CSPRNG)
        self.applied = 0
        self._parked = False  # the task waits for its inbox
        self._carrying: asyncio.Task[None] | None = None  # effects of a command `take` applied
        self._failed = False  # a write `take` made failed or was fenced off: it steps down
        self._stopping = False
        self._task: asyncio.Task[None] | None = None

    @property
    def waiting(self) -> bool:
        """Waiting for its next commands: stopping it now interrupts nothing."""
        return self._parked and self._applying is None and self._carrying is None

    async def snapshot(self) -> bytes:
        """The last committed record with its view, which one process does not store.

        Journaled, the record is encoded here, for a reader, rather than at every
        commit: a reader that comes while a batch waits for its commit reads after
        it (never a state that is not on disk yet); BusUnavailable if that commit failed."""
        while self._applying is not None:
            if not await self._applying.wait():
                raise BusUnavailable(f"room {self.code}: its last write failed")
        if self._stored is None:
            self._stored = self.room.snapshot(with_view=False)
        if self.store_views:
            return self._stored
        return self._stored[:-1] + b',"state":' + self._view.json + b"}"

    @property
    def code(self) -> str:
        return self.room.code

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name=f"room-{self.code}")

    async def stop(self, release: bool = True) -> None:
        task, self._task = self._task, None
        if task is not None:
            stepped_down = task.done()  # a failed write: its room is not what is stored
            self._stopping = True
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
            if self._carrying is not None:
                self._carrying.cancel()
                await asyncio.gather(self._carrying, return_exceptions=True)
            while self._applying is not None:  # a write `take` made
                await self._applying.wait()
            stepped_down = stepped_down or self._failed
            if self.journal is not None and self._unsaved and not stepped_down:
                with contextlib.suppress(BusUnavailable):  # the log has every event anyway
                    await self._save()
        if release:
            with contextlib.suppress(BusUnavailable):
                await self.bus.release(self.code, self.epoch)

    async def _run(self) -> None:
        """Wait for the inbox, apply what it brings; with a lease, the bus renews it with
        every other room's (`keep_lease`), so an idle room sleeps either way."""
        if self.leases is not None:
            self.leases.keep_lease(self.code, self.epoch, self._lease_lost)
        try:
            await self._carry_out(list(self.room.effects.values()))  # left by the last owner
            while True:
                self._parked = True
                batch = await self.bus.read_commands(self.code, self.cursor, None)
                self._parked = False
                if self._lost is not None:
                    log.warning("room %s: %s, stepping down", self.code, self._lost)
                    return
                if batch and not await self._settled():
                    return
                if batch and not await self._apply(batch):
                    log.warning("room %s: commit fenced off, stepping down", self.code)
                    return
        except BusUnavailable:
            log.warning("room %s: backplane unreachable, stepping down", self.code)
        except asyncio.CancelledError:
            # Ours (`stop`): end normally. A task that ends cancelled keeps the error,
            # whose traceback holds this frame and the whole room in a cycle that only
            # a full GC frees (thousands of rooms leave memory in a game night).
            if not (self._stopping or self._failed):
                raise
        finally:
            if self.leases is not None:
                self.leases.stop_keeping(self.code, self.epoch)
            self.on_exit(self)

    def _lease_lost(self, why: str) -> None:
        self._lost = why

    async def _apply(self, batch: list[tuple[str, bytes]]) -> bool:
        applying = self._applying = InFlight()
        effects: list[Effect] | None = None
        try:
            effects = await self._apply_batch(batch)
        finally:
            self._applying = None
            applying.settle(effects is not None)
        if effects:
            await self._carry_out(effects)
        return effects is not None

    async def _apply_batch(self, batch: list[tuple[str, bytes]]) -> list[Effect] | None:
        """Apply and commit the batch: the effects it stored, or None when fenced off."""
        done = self._outcomes(envelopes.decode(raw) for _, raw in batch)
        cursor = batch[-1][0]
        if self.journal is not None:
            snapshot = self._snapshot_due(done)
            committed = await self.journal.append(
                self.code,
                self.epoch,
                cursor,
                self._records(done),
                snapshot,
                done.frames,
                done.replies,
            )
            if committed:
                self._saved(snapshot)
        else:
            stored = self.room.snapshot(with_view=self.store_views)
            committed = await self.bus.commit(
                self.code, self.epoch, cursor, stored, done.entries, done.frames, done.replies
            )
            if committed:
                self._stored = stored
                if self.logged is not None:
                    self.logged += len(done.entries)
        if not committed:
            return None
        self._committed(cursor, done)
        return done.effects

    def take(self, envelope: envelopes.Envelope) -> bool:
        """Apply `envelope` now, in one hop, when nothing is before it: the task waiting
        on an empty inbox, no write or effect in flight. One process with a journal: its
        write joins this loop turn's group commit; Redis (`quick`): its commit joins this
        turn's pipeline, and no XADD or XREAD carries it. The answer and the frames go
        out once it is stored. False: submit it to the inbox instead."""
        journal, quick = self.journal, self.quick
        if self._stopping or self._failed:
            return False
        if journal is None:
            return quick is not None and self._take_quick(envelope, quick)
        code = self.room.code
        if not self.waiting or journal.queued(code):
            return False
        done = self._outcomes((envelope,))
        applying = self._applying = InFlight()
        snapshot = self._snapshot_due(done)

        def written(error: BusUnavailable | None) -> None:
            self._applying = None
            applying.settle(error is None)
            if error is not None:
                self._step_down(f"its write failed ({error})")
                return
            self._saved(snapshot)
            self._after_taken(done)

        records = self._records(done)
        if not journal.append_soon(
            code,
            self.epoch,
            self.cursor,
            records,
            snapshot,
            done.frames,
            done.replies,
            written,
        ):
            self._applying = None
            applying.settle(False)
            self._step_down("commit fenced off")
        return True

    def _take_quick(self, envelope: envelopes.Envelope, quick: QuickCommit) -> bool:
        """Redis: taken when the task waits on an empty inbox, no effect is in flight and
        no other process has a player's or the host's socket in the room (then arrival at
        Redis decides between theirs and ours, as it always did).
        While the commits of commands taken before it are on their way (and carry no
        effects) it is applied too, and its commit sent right behind theirs, chained by
        the log's length: it stores nothing unless they stored."""
        chaining = self._taking > 0 and not self._held and self.logged is not None
        if not self._parked or self._carrying is not None:
            return False
        if (self._applying is not None and not chaining) or not quick.idle(self.code):
            return False
        me = self.bus.node_id
        if any(node != me for node in self.room.nodes()):  # arrival at Redis decides
            return False
        done = self._outcomes((envelope,))
        stored = self.room.snapshot(with_view=self.store_views)
        applying = self._applying = InFlight()
        logged = self.logged
        if logged is not None:
            self.logged = logged + len(done.entries)
        self._taking += 1
        held = bool(done.effects)  # nothing is taken after it before its effects are done
        self._held = self._held or held
        self._sent += 1
        number = self._sent

        def committed(error: BusUnavailable | None) -> None:
            self._taking -= 1
            if held:
                self._held = False
            if self._applying is applying:
                self._applying = None
            applying.settle(error is None)
            if error is not None:
                self._step_down(f"its commit failed ({error})")
                return
            if number > self._stored_number:  # (commits end in the order they were sent)
                self._stored, self._stored_number = stored, number
            self._after_taken(done)

        quick.commit_soon(
            self.code,
            self.epoch,
            self.cursor,
            stored,
            done.entries,
            done.frames,
            done.replies,
            logged,
            committed,
        )
        return True

    def _after_taken(self, done: Applied) -> None:
        self._committed(self.cursor, done)
        if done.effects:
            self._carrying = asyncio.create_task(self._carry_out_taken(done.effects))

    def _outcomes(self, batch: Iterable[envelopes.Envelope]) -> Applied:
        """Apply each envelope to the room, in order: what is to be written."""
        done = Applied()
        now = now_ms()
        room = self.room
        for envelope in batch:
            tokens = dict(room.tokens) if self.journal is not None else room.tokens
            try:
                outcome = room.handle(envelope, now, self.chance)
            except Exception:  # a bug must answer its sender, not kill the room
                log.exception("room %s: command failed", self.code)
                command_id = getattr(envelope, "id", None)
                failed = outgoing.refusal(command_id, "internal_error", "The server failed.")
                outcome = Outcome(reply=failed)
            for entry in outcome.entries:
                done.entries.append(orjson.dumps(entry))
            if self.journal is not None and outcome.entries:  # one note per entry
                done.notes.extend([b"{}"] * (len(outcome.entries) - 1))
                note = self._note(envelope, outcome.entries[-1], tokens, outcome.effects)
                done.notes.append(note)
            done.frames.extend(outcome.frames)
            done.effects.extend(outcome.effects)
            if outcome.reply is not None and isinstance(envelope, CommandEnvelope) and envelope.key:
                done.replies.append(Reply(envelope.node, envelope.key, outcome.reply))
        return done

    def _committed(self, cursor: str, done: Applied) -> None:
        self._view = self.room.rendering
        self.cursor = cursor
        self.applied += len(done.entries)

    async def _settled(self) -> bool:
        """Wait for what `take` started (its write, then its effects); False: it failed."""
        while self._applying is not None:
            await self._applying.wait()
        if self._carrying is not None:
            await asyncio.shield(self._carrying)
        return not self._failed

    def _step_down(self, why: str) -> None:
        """A write `take` made failed or was fenced off: the room in memory is ahead of
        what is stored, so it goes (the registry restores it from the store)."""
        log.warning("room %s: %s, stepping down", self.code, why)
        self._failed = True
        if self._task is not None:
            self._task.cancel()

    async def _carry_out_taken(self, effects: list[Effect]) -> None:
        try:
            await self._carry_out(effects)
        except BusUnavailable:
            self._step_down("backplane unreachable")
        finally:
            self._carrying = None

    def _note(
        self,
        envelope: envelopes.Envelope,
        entry: dict[str, Any],
        tokens: dict[str, str],
        effects: list[Effect],
    ) -> bytes:
        """What an event changed that only the snapshot holds (see `Room._catch_up`)."""
        note: dict[str, Any] = {}
        command_id = envelope.id if isinstance(envelope, CommandEnvelope) else None
        remembered = self.room.accepted.get(entry["by"])
        if remembered is not None and remembered.get(command_id or "") == entry["seq"]:
            note["id"] = command_id  # remembered for retries (not every command is)
        if self.room.tokens != tokens:  # the change, not the map (a table's many bankers)
            now = self.room.tokens
            note["tokens_set"] = {h: p for h, p in now.items() if tokens.get(h) != p}
            note["tokens_del"] = [h for h in tokens if h not in now]
        if effects:
            note["effects"] = [{"kind": e.kind, "id": e.id, "data": e.data} for e in effects]
        if self.room.fair is not None and "dice_reveal" in entry.get("fair", {}):
            note["fair_seed"] = self.room.fair.seed  # the fresh secret: in no log (fair-dice.md)
        return orjson.dumps(note)

    def _snapshot_due(self, done: Applied) -> bytes | None:
        """The journal's snapshot, only every SNAPSHOT_EVERY events."""
        self._unsaved += len(done.entries) or 1  # a batch without event may change presence
        if self._unsaved >= SNAPSHOT_EVERY and done.entries:
            return self.room.snapshot(with_view=False)
        return None

    @staticmethod
    def _records(done: Applied) -> list[tuple[bytes, bytes]]:
        return list(zip(done.entries, done.notes, strict=True))

    def _saved(self, snapshot: bytes | None) -> None:
        self._stored = snapshot  # None: made when it is read (`snapshot`)
        if snapshot is not None:
            self._unsaved = 0

    async def _save(self) -> None:
        """Store the room's snapshot (it stops, or goes idle): a restore then replays
        no notes, and what no note holds (presence, effects done) is kept."""
        assert self.journal is not None
        snapshot = self.room.snapshot(with_view=False)
        if await self.journal.append(self.code, self.epoch, self.cursor, [], snapshot, []):
            self._stored, self._unsaved = snapshot, 0

    async def _carry_out(self, effects: list[Effect]) -> None:
        """Run committed effects, then tell the room (through its inbox) which are done;
        skip one that a newer one replaced meanwhile (a report: `Room._store`)."""
        source = Source(self.code, dict(self.room.tokens))
        for effect in effects:
            if effect.id not in self.room.effects:
                continue
            if await self.effects.run(source, effect):
                done = envelopes.EffectDoneEnvelope(effect.id)
                await self.bus.submit(self.code, envelopes.encode(done))
