"""The one-process backplane without a disk: rooms, inboxes and fan-out in memory.

For tests and for `BANKIT_STORE=memory`; a restart loses every room.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from app.bus.base import Frame, Reply
from app.bus.local import Live, LocalBus


@dataclass(slots=True)
class _Record(Live):
    snapshot: bytes = b""
    log: list[bytes] = field(default_factory=list)
    cursor: str = "0"


class MemoryBus(LocalBus[_Record]):
    """Everything is local, so a commit is a few assignments and publishing is a call."""

    def __init__(self) -> None:
        super().__init__("mem-")

    async def close(self) -> None:
        self._rooms.clear()

    async def ready(self) -> bool:
        return True

    async def create_room(
        self, code: str, snapshot: bytes, first_entry: bytes, keep_seconds: float | None = None
    ) -> bool:
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
        if self._rooms.pop(code, None) is not None:
            self._gone(code)

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
        record = self._owner(code, epoch)
        if record is None:
            return False
        record.snapshot, record.cursor = snapshot, cursor
        record.log.extend(entries)
        self._publish(code, frames, replies)
        return True
