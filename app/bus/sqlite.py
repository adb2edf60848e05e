"""The one-process backplane that keeps its rooms on disk: MemoryBus plus an SQLite file.

Inboxes, ownership and fan-out live in this process's memory exactly as in MemoryBus;
the room records (snapshot, cursor, log) are rows of one SQLite file in WAL mode, so a
restart (or a crash) loses no acknowledged command. See docs/storage.md.

- `synchronous=NORMAL`: a commit is a write() to the WAL, no fsync (~15 µs): it runs
  inline on the event loop. It survives a crash of the process, not of the machine.
- `synchronous=FULL`: every transaction is fsynced (~0.2 ms or more). It runs in a
  writer thread, and the commits of every room that arrive while one is being written
  go to disk together, in one transaction (group commit: one fsync for all of them).

Reads use a second connection, which sees only committed transactions. Checkpoints
(copying the WAL into the file, with an fsync even in NORMAL) run in a thread of their
own, every CHECKPOINT_SECONDS when something was written: left to the writer they
stall the event loop for several ms every ~1000 pages.
"""

from __future__ import annotations

import asyncio
import fcntl
import secrets
import sqlite3
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Literal

from app.bus.base import GONE, BusUnavailable, Frame, FrameHandler, Reply, ReplyHandler

CHECKPOINT_SECONDS = 0.2  # how often the WAL is copied into the file (when written to)
WAL_TRUNCATE_PAGES = 4096  # ~16 MB of WAL: then it is emptied, holding the writer off briefly
Synchronous = Literal["NORMAL", "FULL"]
Work = Callable[[sqlite3.Connection], None]

SCHEMA = """
CREATE TABLE IF NOT EXISTS rooms (
    code TEXT PRIMARY KEY,
    snapshot BLOB NOT NULL,
    cursor TEXT NOT NULL,
    log_len INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS entries (
    code TEXT NOT NULL,
    n INTEGER NOT NULL,
    entry BLOB NOT NULL,
    PRIMARY KEY (code, n)
) WITHOUT ROWID;
"""


@dataclass
class _Live:
    """What only this process knows of a stored room: inbox, ownership, log length."""

    log_len: int
    submitted: int  # inbox ids continue after the stored cursor: they sort after it
    epoch: int = 0
    owned: bool = False
    inbox: asyncio.Queue[tuple[str, bytes]] = field(default_factory=asyncio.Queue)


def _after(cursor: str) -> int:
    """The inbox counter to resume from: the stored cursor when it is one of ours."""
    return int(cursor) if cursor.isdigit() else 0


def connect(path: Path, synchronous: Synchronous) -> sqlite3.Connection:
    """A connection in autocommit mode (transactions are explicit) with our pragmas."""
    conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    conn.execute("PRAGMA auto_vacuum=INCREMENTAL")  # only takes effect on a new file
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute(f"PRAGMA synchronous={synchronous}")
    conn.execute("PRAGMA wal_autocheckpoint=0")  # the checkpointer's job, off the loop
    conn.execute("PRAGMA busy_timeout=5000")
    return conn


class _Writer:
    """Runs write transactions: inline, or in one thread with group commit."""

    def __init__(self, conn: sqlite3.Connection, threaded: bool) -> None:
        self.conn = conn
        self.threaded = threaded
        self.transactions = 0  # how many went to disk (a group counts once)
        self._executor = ThreadPoolExecutor(1, "sqlite-writer") if threaded else None
        self._pending: list[tuple[Work, asyncio.Future[None]]] = []
        self._flusher: asyncio.Task[None] | None = None

    async def run(self, work: Work) -> None:
        """Write `work` in a transaction; BusUnavailable (nothing stored) if SQLite fails."""
        try:
            await self._run(work)
        except sqlite3.Error as error:
            raise BusUnavailable(f"sqlite: {error}") from error

    async def _run(self, work: Work) -> None:
        if self._executor is None:
            error = self._write([work])[0]
            if error is not None:
                raise error
            return
        future = asyncio.get_running_loop().create_future()
        self._pending.append((work, future))
        if self._flusher is None:
            self._flusher = asyncio.create_task(self._flush())
        await future

    async def _flush(self) -> None:
        """Write everything pending; what arrives meanwhile waits for the next group."""
        loop = asyncio.get_running_loop()
        try:
            while self._pending:
                group, self._pending = self._pending, []
                works = [work for work, _ in group]
                errors: list[Exception | None]
                try:
                    errors = await loop.run_in_executor(self._executor, self._write, works)
                except Exception as error:  # the whole group failed (disk full, I/O error)
                    errors = [error] * len(group)
                for (_, future), error_or_none in zip(group, errors):
                    if future.done():  # its waiter was cancelled
                        continue
                    if error_or_none is None:
                        future.set_result(None)
                    else:
                        future.set_exception(error_or_none)
        finally:
            self._flusher = None

    def _write(self, group: list[Work]) -> list[Exception | None]:
        """One transaction; each work item in a savepoint, so one failure spoils only itself."""
        errors: list[Exception | None] = []
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            for work in group:
                self.conn.execute("SAVEPOINT item")
                try:
                    work(self.conn)
                except sqlite3.Error as error:
                    self.conn.execute("ROLLBACK TO item")
                    errors.append(error)
                else:
                    errors.append(None)
                self.conn.execute("RELEASE item")
            self.conn.execute("COMMIT")
        except BaseException:
            if self.conn.in_transaction:
                self.conn.execute("ROLLBACK")
            raise
        self.transactions += 1
        return errors

    async def vacuum(self) -> None:
        """Give the pages of deleted rooms back to the file system."""
        if self._executor is None:
            self._vacuum()
        else:
            await asyncio.get_running_loop().run_in_executor(self._executor, self._vacuum)

    def _vacuum(self) -> None:
        self.conn.execute("PRAGMA incremental_vacuum").fetchall()  # each step frees a page

    async def close(self) -> None:
        if self._flusher is not None:
            await asyncio.gather(self._flusher, return_exceptions=True)
        if self._executor is not None:
            self._executor.shutdown(wait=True)
        self.conn.close()


class _Checkpointer:
    """Copies the WAL into the database file from a thread and connection of its own."""

    def __init__(self, path: Path, synchronous: Synchronous, writer: _Writer) -> None:
        self.conn = connect(path, synchronous)
        self.writer = writer
        self.checkpoints = 0
        self.truncations = 0
        self._executor = ThreadPoolExecutor(1, "sqlite-checkpoint")
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name="sqlite-checkpoint")

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        seen = 0  # inline commits never yield: count from before the first of them
        while True:
            await asyncio.sleep(CHECKPOINT_SECONDS)
            written = self.writer.transactions
            if written == seen:
                continue
            try:
                await loop.run_in_executor(self._executor, self._checkpoint)
            except sqlite3.Error:  # tried again next time; the WAL just grows meanwhile
                continue
            seen = written

    def _checkpoint(self) -> None:
        """PASSIVE never waits for the writer, but under steady writes the WAL is never
        wholly copied at the moment a write begins, so it never starts over and grows:
        past WAL_TRUNCATE_PAGES, TRUNCATE briefly holds the writer off and empties it."""
        _, wal_pages, _ = self.conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
        self.checkpoints += 1
        if wal_pages > WAL_TRUNCATE_PAGES:
            self.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
            self.truncations += 1

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
        self._executor.shutdown(wait=True)
        self.conn.close()


class DataDirInUse(RuntimeError):
    """Another process serves this data directory: two owners of one room would diverge."""


class SqliteBus:
    """MemoryBus's semantics, with each room's record written through to SQLite."""

    def __init__(
        self,
        path: Path,
        synchronous: Synchronous = "NORMAL",
        threaded: bool | None = None,
    ) -> None:
        self.node_id = "sql-" + secrets.token_hex(4)
        self.path = Path(path)
        self.synchronous: Synchronous = synchronous
        self.threaded = synchronous == "FULL" if threaded is None else threaded
        self._rooms: dict[str, _Live] = {}
        self._on_frame: FrameHandler | None = None
        self._on_reply: ReplyHandler | None = None
        self._writer: _Writer | None = None
        self._reader: sqlite3.Connection | None = None
        self._lock: IO[bytes] | None = None
        self._checkpointer: _Checkpointer | None = None

    # -- lifecycle -------------------------------------------------------------------
    async def start(self, on_frame: FrameHandler, on_reply: ReplyHandler) -> None:
        self._on_frame, self._on_reply = on_frame, on_reply
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = self._take_lock()
        conn = connect(self.path, self.synchronous)
        conn.executescript(SCHEMA)
        self._writer = _Writer(conn, self.threaded)
        self._reader = connect(self.path, self.synchronous)
        self._checkpointer = _Checkpointer(self.path, self.synchronous, self._writer)
        self._checkpointer.start()
        for code, cursor, log_len in self._reader.execute(
            "SELECT code, cursor, log_len FROM rooms"
        ):
            self._rooms[code] = _Live(log_len=log_len, submitted=_after(cursor))

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
        return self._checkpointer.truncations if self._checkpointer else 0

    @property
    def transactions(self) -> int:
        """Write transactions so far (with group commit, fewer than commits)."""
        return self._writer.transactions if self._writer else 0

    def pragma(self, name: str) -> tuple[object, object]:
        """A setting as the writing and the reading connection see it (for tests, ops)."""
        writer, reader = self._db()
        pragma = f"PRAGMA {name}"
        return writer.conn.execute(pragma).fetchone()[0], reader.execute(pragma).fetchone()[0]

    def _db(self) -> tuple[_Writer, sqlite3.Connection]:
        if self._writer is None or self._reader is None:
            raise RuntimeError("SqliteBus is not started")
        return self._writer, self._reader

    # -- room records ----------------------------------------------------------------
    async def stored_rooms(self) -> list[str]:
        _, reader = self._db()
        return [code for (code,) in reader.execute("SELECT code FROM rooms ORDER BY code")]

    async def create_room(self, code: str, snapshot: bytes, first_entry: bytes) -> bool:
        writer, _ = self._db()
        if code in self._rooms:
            return False
        self._rooms[code] = _Live(log_len=1, submitted=0)

        def insert(conn: sqlite3.Connection) -> None:
            conn.execute("INSERT INTO rooms VALUES (?, ?, '0', 1)", (code, snapshot))
            conn.execute("INSERT INTO entries VALUES (?, 0, ?)", (code, first_entry))

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
        if known and self._on_frame:
            self._on_frame(code, Frame(GONE, 0, ""))

    # -- ownership (this process only, as in MemoryBus) --------------------------------
    async def claim(self, code: str) -> int | None:
        live = self._rooms.get(code)
        if live is None or live.owned:
            return None
        live.owned = True
        live.epoch += 1
        return live.epoch

    async def renew(self, code: str, epoch: int) -> bool:
        live = self._rooms.get(code)
        return live is not None and live.owned and live.epoch == epoch

    async def release(self, code: str, epoch: int) -> None:
        live = self._rooms.get(code)
        if live is not None and live.epoch == epoch:
            live.owned = False

    # -- commands --------------------------------------------------------------------
    async def submit(self, code: str, envelope: bytes) -> None:
        live = self._rooms.get(code)
        if live is None:
            raise KeyError(code)
        live.submitted += 1
        live.inbox.put_nowait((str(live.submitted), envelope))

    async def read_commands(
        self, code: str, after: str, block_ms: int | None
    ) -> list[tuple[str, bytes]]:
        live = self._rooms.get(code)
        if live is None:
            return []
        inbox = live.inbox
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
        writer, _ = self._db()
        live = self._rooms.get(code)
        if live is None or live.epoch != epoch or not live.owned:
            return False
        first, live.log_len = live.log_len, live.log_len + len(entries)
        rows = [(code, first + n, entry) for n, entry in enumerate(entries)]

        def store(conn: sqlite3.Connection) -> None:
            conn.execute(
                "UPDATE rooms SET snapshot = ?, cursor = ?, log_len = ? WHERE code = ?",
                (snapshot, cursor, first + len(rows), code),
            )
            conn.executemany("INSERT INTO entries VALUES (?, ?, ?)", rows)

        try:
            await writer.run(store)
        except BusUnavailable:  # nothing was stored: the next commit reuses these places
            live.log_len = first  # (a cancelled waiter's write still lands: keep the count)
            raise
        if self._on_frame is not None:
            for frame in frames:
                self._on_frame(code, frame)
        if self._on_reply is not None:
            for reply in replies:
                self._on_reply(reply.key, reply.payload)
        return True

    # -- fan-out ---------------------------------------------------------------------
    async def subscribe(self, code: str) -> None:
        """Every frame of this process already reaches `on_frame`."""

    async def unsubscribe(self, code: str) -> None:
        """Nothing to undo: see `subscribe`."""

    async def reply(self, node: str, key: str, payload: bytes) -> None:
        if self._on_reply is not None:
            self._on_reply(key, payload)


def file_of(data_dir: Path) -> Path:
    """Where a data directory keeps its rooms."""
    return Path(data_dir) / "bankit.sqlite3"
