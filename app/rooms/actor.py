"""The room actor: the one task in the deployment that applies a room's commands.

It reads the room's ordered inbox from the bus, applies each envelope to the `Room`,
commits the snapshot, the log entries and the inbox cursor in one fenced write, and
only then publishes the new state and answers the senders: an ack is never sent for
something that could still be lost. When a commit is refused (another process owns
the room now) or the bus fails, the actor stops and drops its in-memory copy.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable

import orjson

from app.bus.base import Bus, BusUnavailable, Frame, Reply
from app.rooms.dice import fair_dice
from app.rooms.room import Room, refusal

log = logging.getLogger("bankit.actor")


def now_ms() -> int:
    return int(time.time() * 1000)


class RoomActor:
    def __init__(
        self,
        room: Room,
        bus: Bus,
        epoch: int,
        cursor: str,
        renew_seconds: float | None,
        on_exit: Callable[[RoomActor], None],
    ) -> None:
        self.room = room
        self.bus = bus
        self.epoch = epoch
        self.cursor = cursor
        self.renew_seconds = renew_seconds
        self.on_exit = on_exit
        self.applied = 0
        self._task: asyncio.Task[None] | None = None

    @property
    def code(self) -> str:
        return self.room.code

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name=f"room-{self.code}")

    async def stop(self, release: bool = True) -> None:
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
        if release:
            with contextlib.suppress(BusUnavailable):
                await self.bus.release(self.code, self.epoch)

    async def _run(self) -> None:
        """`renew_seconds` None: the lease never lapses (one process), so an idle room sleeps."""
        block_ms = None if self.renew_seconds is None else int(self.renew_seconds * 1000)
        renewed = time.monotonic()
        try:
            while True:
                batch = await self.bus.read_commands(self.code, self.cursor, block_ms)
                if (
                    self.renew_seconds is not None
                    and time.monotonic() - renewed >= self.renew_seconds
                ):
                    if not await self.bus.renew(self.code, self.epoch):
                        log.warning("room %s: lease lost, stepping down", self.code)
                        return
                    renewed = time.monotonic()
                if batch and not await self._apply(batch):
                    log.warning("room %s: commit fenced off, stepping down", self.code)
                    return
        except BusUnavailable:
            log.warning("room %s: backplane unreachable, stepping down", self.code)
        finally:
            self.on_exit(self)

    async def _apply(self, batch: list[tuple[str, bytes]]) -> bool:
        entries: list[bytes] = []
        frames: list[Frame] = []
        replies: list[Reply] = []
        now = now_ms()
        for _, raw in batch:
            envelope = orjson.loads(raw)
            try:
                outcome = self.room.handle(envelope, now, fair_dice())
            except Exception:  # a bug must answer its sender, not kill the room
                log.exception("room %s: command failed", self.code)
                reply = refusal(envelope.get("id"), "internal_error", "The server failed.")
                replies.append(Reply(envelope.get("node", ""), envelope.get("key", ""), reply))
                continue
            entries.extend(orjson.dumps(entry) for entry in outcome.entries)
            frames.extend(outcome.frames)
            if outcome.reply is not None and envelope.get("key"):
                replies.append(Reply(envelope["node"], envelope["key"], outcome.reply))
        cursor = batch[-1][0]
        if not await self.bus.commit(
            self.code, self.epoch, cursor, self.room.snapshot(), entries, frames, replies
        ):
            return False
        self.cursor = cursor
        self.applied += len(entries)
        return True
