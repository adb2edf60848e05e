"""What both one-process backplanes share: inboxes, ownership and fan-out in memory.

`MemoryBus` keeps the room records in memory too; `SqliteBus` writes them through to
an SQLite file. Either way there is no other process: ownership is a flag with an
epoch, an inbox is an `asyncio.Queue` (made while the room runs: a stored room that
waits on disk costs a few small fields here), and publishing a frame is a call.
"""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

from app.bus.base import GONE, Frame, FrameHandler, Reply, ReplyHandler


@dataclass(slots=True)
class Live:
    """A room as this process runs it: its inbox and who owns it."""

    submitted: int = 0  # the inbox's ids count on from here (after a stored cursor)
    epoch: int = 0
    owned: bool = False
    # Made by the first command or read, dropped when the room is released empty: a
    # Queue weighs ~3 KB, and every finished room waits on disk for its viewers.
    _inbox: asyncio.Queue[tuple[str, bytes]] | None = None

    @property
    def inbox(self) -> asyncio.Queue[tuple[str, bytes]]:
        if self._inbox is None:
            self._inbox = asyncio.Queue()
        return self._inbox

    def queued(self) -> int:
        return 0 if self._inbox is None else self._inbox.qsize()

    def stopped(self) -> None:
        """Its actor is gone: an empty inbox goes too (the next command makes another)."""
        if self._inbox is not None and self._inbox.empty():
            self._inbox = None


R = TypeVar("R", bound=Live)
CommitHandler = Callable[[str, Sequence[Frame], Sequence[Reply]], None]


class LocalBus(Generic[R]):
    """The in-process half of a `Bus`; subclasses keep the records (`_rooms`)."""

    def __init__(self, prefix: str) -> None:
        self.node_id = prefix + secrets.token_hex(4)
        self._rooms: dict[str, R] = {}
        self._on_frame: FrameHandler | None = None
        self._on_reply: ReplyHandler | None = None
        # Who takes a commit's frames and answers in one call, when someone does (the
        # hub: it writes a sender's state and its answer at once, in one write).
        self.on_commit: CommitHandler | None = None

    async def start(self, on_frame: FrameHandler, on_reply: ReplyHandler) -> None:
        self._on_frame, self._on_reply = on_frame, on_reply

    # -- ownership -----------------------------------------------------------------
    async def claim(self, code: str) -> int | None:
        live = self._rooms.get(code)
        if live is None or live.owned:
            return None
        live.owned = True
        live.epoch += 1
        return live.epoch

    async def renew(self, code: str, epoch: int) -> bool:
        return self._owner(code, epoch) is not None

    async def release(self, code: str, epoch: int) -> None:
        live = self._rooms.get(code)
        if live is not None and live.epoch == epoch:
            live.owned = False
            live.stopped()

    def _owner(self, code: str, epoch: int) -> R | None:
        """The room if `epoch` still owns it (commits are fenced by this)."""
        live = self._rooms.get(code)
        return live if live is not None and live.owned and live.epoch == epoch else None

    # -- commands --------------------------------------------------------------------
    async def submit(self, code: str, envelope: bytes) -> None:
        self.submit_nowait(code, envelope)

    def submit_nowait(self, code: str, envelope: bytes) -> bool:
        live = self._rooms.get(code)
        if live is None:
            raise KeyError(code)
        live.submitted += 1
        live.inbox.put_nowait((str(live.submitted), envelope))
        return True

    def queued(self, code: str) -> int:
        live = self._rooms.get(code)
        return 0 if live is None else live.queued()

    async def read_commands(
        self, code: str, after: str, block_ms: int | None
    ) -> list[tuple[str, bytes]]:
        live = self._rooms.get(code)
        if live is None:
            return []
        inbox = live.inbox
        if not inbox.empty():
            first = inbox.get_nowait()
        elif block_ms is None:  # one process: an idle room just waits
            first = await inbox.get()
        else:
            try:
                async with asyncio.timeout(block_ms / 1000):
                    first = await inbox.get()
            except TimeoutError:
                return []
        batch = [first]
        while not inbox.empty():
            batch.append(inbox.get_nowait())
        return batch

    # -- fan-out ---------------------------------------------------------------------
    def _publish(self, code: str, frames: Sequence[Frame], replies: Sequence[Reply]) -> None:
        """After a commit: the frames to this process's sockets, then the answers."""
        if self.on_commit is not None:
            self.on_commit(code, frames, replies)
            return
        if self._on_frame is not None:
            for frame in frames:
                self._on_frame(code, frame)
        if self._on_reply is not None:
            for reply in replies:
                self._on_reply(reply.key, reply.payload)

    def _gone(self, code: str) -> None:
        if self._on_frame is not None:
            self._on_frame(code, Frame(GONE, 0, ""))

    async def subscribe(self, code: str) -> None:
        """Every frame of this process already reaches `on_frame`."""

    async def unsubscribe(self, code: str) -> None:
        """Nothing to undo: see `subscribe`."""
