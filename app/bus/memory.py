"""The one-process backplane: rooms, inboxes and fan-out in this process's memory."""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Sequence
from dataclasses import dataclass, field

from app.bus.base import GONE, Frame, FrameHandler, Reply, ReplyHandler


@dataclass
class _Record:
    snapshot: bytes
    log: list[bytes]
    cursor: str = "0"
    epoch: int = 0
    owned: bool = False
    inbox: asyncio.Queue[tuple[str, bytes]] = field(default_factory=asyncio.Queue)
    submitted: int = 0


class MemoryBus:
    """Everything is local, so a commit is a few assignments and publishing is a call."""

    def __init__(self) -> None:
        self.node_id = "mem-" + secrets.token_hex(4)
        self._rooms: dict[str, _Record] = {}
        self._on_frame: FrameHandler | None = None
        self._on_reply: ReplyHandler | None = None

    async def start(self, on_frame: FrameHandler, on_reply: ReplyHandler) -> None:
        self._on_frame, self._on_reply = on_frame, on_reply

    async def close(self) -> None:
        self._rooms.clear()

    async def ready(self) -> bool:
        return True

    async def create_room(self, code: str, snapshot: bytes, first_entry: bytes) -> bool:
        if code in self._rooms:
            return False
        self._rooms[code] = _Record(snapshot=snapshot, log=[first_entry])
        return True

    async def load_snapshot(self, code: str) -> bytes | None:
        record = self._rooms.get(code)
        return record.snapshot if record else None

    async def load_log(self, code: str) -> list[bytes]:
        record = self._rooms.get(code)
        return list(record.log) if record else []

    async def load_cursor(self, code: str) -> str:
        record = self._rooms.get(code)
        return record.cursor if record else "0"

    async def delete_room(self, code: str) -> None:
        if self._rooms.pop(code, None) is not None and self._on_frame:
            self._on_frame(code, Frame(GONE, 0, ""))

    async def claim(self, code: str) -> int | None:
        record = self._rooms.get(code)
        if record is None or record.owned:
            return None
        record.owned = True
        record.epoch += 1
        return record.epoch

    async def renew(self, code: str, epoch: int) -> bool:
        record = self._rooms.get(code)
        return record is not None and record.owned and record.epoch == epoch

    async def release(self, code: str, epoch: int) -> None:
        record = self._rooms.get(code)
        if record is not None and record.epoch == epoch:
            record.owned = False

    async def submit(self, code: str, envelope: bytes) -> None:
        record = self._rooms.get(code)
        if record is None:
            raise KeyError(code)
        record.submitted += 1
        record.inbox.put_nowait((str(record.submitted), envelope))

    async def read_commands(
        self, code: str, after: str, block_ms: int | None
    ) -> list[tuple[str, bytes]]:
        record = self._rooms.get(code)
        if record is None:
            return []
        inbox = record.inbox
        if inbox.empty():
            try:
                async with asyncio.timeout(None if block_ms is None else block_ms / 1000):
                    first = await inbox.get()
            except TimeoutError:
                return []
        else:
            first = inbox.get_nowait()
        batch = [first]
        while not inbox.empty():
            batch.append(inbox.get_nowait())
        return batch

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
        record = self._rooms.get(code)
        if record is None or record.epoch != epoch or not record.owned:
            return False
        record.snapshot, record.cursor = snapshot, cursor
        record.log.extend(entries)
        if self._on_frame is not None:
            for frame in frames:
                self._on_frame(code, frame)
        if self._on_reply is not None:
            for reply in replies:
                self._on_reply(reply.key, reply.payload)
        return True

    async def subscribe(self, code: str) -> None:
        """Every frame of this process already reaches `on_frame`."""

    async def unsubscribe(self, code: str) -> None:
        """Nothing to undo: see `subscribe`."""

    async def reply(self, node: str, key: str, payload: bytes) -> None:
        if self._on_reply is not None:
            self._on_reply(key, payload)
