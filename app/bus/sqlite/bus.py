"""The one-process backplane that keeps its rooms on disk: LocalBus plus an SQLite file.

Inboxes, ownership and fan-out live in this process's memory (app/bus/local.py); the
room records (snapshot, cursor, log) are rows of one SQLite file in WAL mode
(app/bus/sqlite/file.py), so a restart (or a crash) loses no acknowledged command.
Reads use a second connection, which sees only committed transactions. See
docs/storage.md.
"""

from __future__ import annotations

import asyncio
import fcntl
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from app.bus.base import BusUnavailable, Committed, Frame, FrameHandler, Reply, ReplyHandler
from app.bus.local import Live, LocalBus
from app.bus.sqlite.file import (
    WRITER_CACHE_KIB,
    Checkpointer,
    DataDirInUse,
    Synchronous,
    Writer,
    connect,
    file_of,
    migrate,
)

__all__ = ["DataDirInUse", "SqliteBus", "file_of"]


@dataclass(slots=True)
class _Stored(Live):
    """A stored room as this process runs it: how long its log is on disk."""

    log_len: int = 0


def _after(cursor: str) -> int:
    """The inbox counter to resume from: the stored cursor when it is one of ours."""
    return int(cursor) if cursor.isdigit() else 0


class SqliteBus(LocalBus[_Stored]):
    """MemoryBus's semantics, with each room's record written through to SQLite."""

    def __init__(
        self,
        path: Path,
        synchronous: Synchronous = "NORMAL",
        threaded: bool | None = None,
    ) -> None:
        super().__init__("sql-")
        self.path = Path(path)
        self.synchronous: Synchronous = synchronous
        self.threaded = synchronous == "FULL" if threaded is None else threaded
        self._writer: Writer | None = None
        self._reader: sqlite3.Connection | None = None
        self._lock: IO[bytes] | None = None
        self._checkpointer: Checkpointer | None = None

    # -- lifecycle -------------------------------------------------------------------
    async def start(self, on_frame: FrameHandler, on_reply: ReplyHandler) -> None:
        await super().start(on_frame, on_reply)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = self._take_lock()
        conn = connect(self.path, self.synchronous, WRITER_CACHE_KIB)  # every live room's pages
        migrate(conn)
        self._writer = Writer(conn, self.threaded)
        self._reader = connect(self.path, self.synchronous)
        self._checkpointer = Checkpointer(self.path, self.synchronous, self._writer)
        self._checkpointer.start()
        for code, cursor, log_len in self._reader.execute(
            "SELECT code, cursor, (SELECT max(n) + 1 FROM entries WHERE entries.code = rooms.code)"
            " FROM rooms"
        ):
            self._rooms[code] = _Stored(log_len=log_len, submitted=_after(cursor))

    def _take_lock(self) -> IO[bytes]:
        lock = open(str(self.path) + ".lock", "wb")  # noqa: SIM115 (held until close)
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            lock.close()
            raise DataDirInUse(f"{self.path} is used by another process") from None
        return lock

    async def close(self) -> None:
        self._rooms.clear()
        if self._checkpointer is not None:
            await self._checkpointer.close()
            self._checkpointer = None
        if self._writer is not None:
            await self._writer.close()
            self._writer = None
        if self._reader is not None:
            self._reader.close()
            self._reader = None
        if self._lock is not None:
            self._lock.close()
            self._lock = None

    async def ready(self) -> bool:
        return self._writer is not None

    @property
    def checkpoints(self) -> int:
        """WAL checkpoints the checkpointer ran so far."""
        return self._checkpointer.checkpoints if self._checkpointer else 0

    @property
    def truncations(self) -> int:
        """Times the checkpointer emptied a WAL that steady writes kept from starting over."""
        return self._writer.truncations if self._writer else 0

    @property
    def transactions(self) -> int:
        """Write transactions so far (with group commit, fewer than commits)."""
        return self._writer.transactions if self._writer else 0

    def pragma(self, name: str) -> tuple[object, object]:
        """A setting as the writing and the reading connection see it (for tests, ops)."""
        writer, reader = self._db()
        pragma = f"PRAGMA {name}"
        return writer.conn.execute(pragma).fetchone()[0], reader.execute(pragma).fetchone()[0]

    def _db(self) -> tuple[Writer, sqlite3.Connection]:
        if self._writer is None or self._reader is None:
            raise RuntimeError("SqliteBus is not started")
        return self._writer, self._reader

    # -- room records ----------------------------------------------------------------
    async def stored_rooms(self) -> list[str]:
        _, reader = self._db()
        return [code for (code,) in reader.execute("SELECT code FROM rooms ORDER BY code")]

    async def create_room(
        self, code: str, snapshot: bytes, first_entry: bytes, keep_seconds: float | None = None
    ) -> bool:
        writer, _ = self._db()
        if code in self._rooms:
            return False
        self._rooms[code] = _Stored(log_len=1)

        def insert(conn: sqlite3.Connection) -> None:
            conn.execute("INSERT INTO rooms VALUES (?, ?, '0', 1)", (code, snapshot))
            conn.execute("INSERT INTO entries VALUES (?, 0, ?, NULL)", (code, first_entry))

        try:
            await writer.run(insert)
        except BusUnavailable:  # not on cancellation: the queued write still lands
            self._rooms.pop(code, None)
            raise
        return True

    async def load_snapshot(self, code: str) -> bytes | None:
        _, reader = self._db()
        row = reader.execute("SELECT snapshot FROM rooms WHERE code = ?", (code,)).fetchone()
        return bytes(row[0]) if row else None

    async def load_log(self, code: str) -> list[bytes]:
        _, reader = self._db()
        rows = reader.execute("SELECT entry FROM entries WHERE code = ? ORDER BY n", (code,))
        return [bytes(entry) for (entry,) in rows]

    async def load_cursor(self, code: str) -> str:
        _, reader = self._db()
        row = reader.execute("SELECT cursor FROM rooms WHERE code = ?", (code,)).fetchone()
        return str(row[0]) if row else "0"

    async def delete_room(self, code: str) -> None:
        writer, _ = self._db()
        known = self._rooms.pop(code, None) is not None

        def delete(conn: sqlite3.Connection) -> None:
            conn.execute("DELETE FROM entries WHERE code = ?", (code,))
            conn.execute("DELETE FROM rooms WHERE code = ?", (code,))

        await writer.run(delete)
        await writer.vacuum()
        if known:
            self._gone(code)

    # -- commands (the inbox and ownership are LocalBus's) -------------------------
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
        writer, _ = self._db()
        live = self._owner(code, epoch)
        if live is None:
            return False
        first, live.log_len = live.log_len, live.log_len + len(entries)
        rows = [(code, first + n, entry, None) for n, entry in enumerate(entries)]

        def store(conn: sqlite3.Connection) -> None:
            conn.execute(
                "UPDATE rooms SET snapshot = ?, cursor = ?, log_len = ? WHERE code = ?",
                (snapshot, cursor, first + len(rows), code),
            )
            conn.executemany("INSERT INTO entries VALUES (?, ?, ?, ?)", rows)

        try:
            await writer.run(store)
        except BusUnavailable:  # nothing was stored: the next commit reuses these places
            live.log_len = first  # (a cancelled waiter's write still lands: keep the count)
            raise
        self._publish(code, frames, replies)
        return True

    async def append(
        self,
        code: str,
        epoch: int,
        cursor: str,
        records: Sequence[tuple[bytes, bytes]],
        snapshot: bytes | None,
        frames: Sequence[Frame],
        replies: Sequence[Reply] = (),
    ) -> bool:
        """The `Journal` write, awaited (see `append_soon`)."""
        written: asyncio.Future[None] = asyncio.get_running_loop().create_future()

        def settle(error: BusUnavailable | None) -> None:
            if written.done():  # its waiter was cancelled (the write landed all the same)
                return
            if error is None:
                written.set_result(None)
            else:
                written.set_exception(error)

        if not self.append_soon(code, epoch, cursor, records, snapshot, frames, replies, settle):
            return False
        await written
        return True

    def append_soon(
        self,
        code: str,
        epoch: int,
        cursor: str,
        records: Sequence[tuple[bytes, bytes]],
        snapshot: bytes | None,
        frames: Sequence[Frame],
        replies: Sequence[Reply],
        done: Committed,
    ) -> bool:
        """The `Journal` write: entries with their notes, the snapshot only when given;
        False when fenced (nothing stored, published or answered, `done` not called).

        A batch that made no event (refusals, presence) and brings no snapshot writes
        nothing: published, and `done`, at once. The rows of every room that appends in
        one turn of the loop share one transaction, at the start of the next turn
        (`Writer.run_soon`); then the frames are published, the senders answered and
        `done` called (with None, or BusUnavailable when nothing was stored)."""
        writer, _ = self._db()
        live = self._owner(code, epoch)
        if live is None:
            return False
        if not records and snapshot is None:
            self._publish(code, frames, replies)
            done(None)
            return True
        first, live.log_len = live.log_len, live.log_len + len(records)
        rows = [(code, first + n, entry, note) for n, (entry, note) in enumerate(records)]
        covered = live.log_len

        def store(conn: sqlite3.Connection) -> None:
            if rows:
                conn.executemany("INSERT INTO entries VALUES (?, ?, ?, ?)", rows)
            if snapshot is not None:
                conn.execute(
                    "UPDATE rooms SET snapshot = ?, cursor = ?, log_len = ? WHERE code = ?",
                    (snapshot, cursor, covered, code),
                )

        def written(error: Exception | None) -> None:
            if error is not None:  # nothing was stored: the next write reuses these places
                live.log_len = first
                done(BusUnavailable(f"sqlite: {error}"))
                return
            try:
                self._publish(code, frames, replies)
            finally:  # stored: the room goes on even if a socket's fan-out failed
                done(None)

        writer.run_soon(store, written)
        return True

    async def load_journal(self, code: str) -> tuple[int, list[tuple[bytes, bytes | None]]]:
        _, reader = self._db()
        row = reader.execute("SELECT log_len FROM rooms WHERE code = ?", (code,)).fetchone()
        if row is None:
            return 0, []
        rows = reader.execute("SELECT entry, note FROM entries WHERE code = ? ORDER BY n", (code,))
        return int(row[0]), [
            (bytes(entry), None if note is None else bytes(note)) for entry, note in rows
        ]
