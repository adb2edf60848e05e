"""The SQLite file of the one-process store: its schema, its writer, its checkpoints.

- `synchronous=NORMAL`: a commit is a write() to the WAL, no fsync: it runs inline on
  the event loop, and the writes every room asks for in one turn of the loop go
  together in one transaction at the start of the next turn (group commit). It
  survives a crash of the process, not of the machine.
- `synchronous=FULL`: every transaction is fsynced (~0.2 ms or more). It runs in a
  writer thread, and the writes of every room that arrive while one group is being
  written go to disk together, in one transaction (one fsync for all of them).

Checkpoints (copying the WAL into the file, with an fsync even in NORMAL) run in a
thread of their own, every second when something was written (sooner in a burst): left to
the writer they stall the event loop for several ms every ~1000 pages. So does
emptying a WAL that grew too long (10-15 ms every ~2 s at 1,000 BANK actions a
second): in NORMAL a thread does it too, while the writer holds its transactions
back (`Writer.hold`) and the loop goes on with everything else.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import sqlite3
import sys
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Literal

from app.bus.base import BusUnavailable

log = logging.getLogger("bankit.sqlite")

# When the WAL is copied into the file: CHECKPOINT_SECONDS after the last checkpoint
# once something was written, sooner when CHECKPOINT_TRANSACTIONS were. A checkpoint
# copies each page once however often it was written since, and fsyncs: every 0.2 s it
# cost ~25 µs of CPU per action at 50 BANK rooms, every second ~5; the transaction count
# bounds the WAL of a burst of writes as 0.2 s did. The writer wakes the checkpointer
# (`Writer.reached`): an idle server's checkpointer never wakes at all.
CHECKPOINT_SECONDS = 1.0
CHECKPOINT_TRANSACTIONS = 500
# A WAL file past this is emptied, holding the writer off briefly. Its size is read on
# the loop: a checkpointer starved of CPU (its nice 19 on a busy host) must not leave
# the WAL growing while it waits for its turn (81 MB under three CPU hogs, before).
WAL_TRUNCATE_BYTES = 16 * 1024 * 1024
# The writer's page cache: SQLite's default, 2 MiB, holds the pages of ~125 rooms
# (~4 each), then every append reads. It fills as the file grows (~10 minutes at
# 200 actions a second), then stays: the bound of what SQLite adds to the process.
WRITER_CACHE_KIB = 65_536
READ_CACHE_KIB = 2_048  # the reader and the checkpointer: rooms load once, checkpoints stream
Synchronous = Literal["NORMAL", "FULL"]
Work = Callable[[sqlite3.Connection], None]
Done = Callable[[Exception | None], None]  # told once the work is written (None) or failed

# `entries` is a rowid table: every room's rows append at its right edge, plus a small
# index entry each. Keyed by (code, n) itself (WITHOUT ROWID, as files made before
# 2026-12-07 are), each ~400-byte row lands inside the tree and splits a page every few
# events (docs/storage.md has the figures). `migrate` rewrites such a file's log once.
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
    note BLOB
);
CREATE UNIQUE INDEX IF NOT EXISTS entries_of_room ON entries (code, n);
"""
OLD_LOG = "entries_keyed_by_room"  # an older file's log while it is copied


def migrate(conn: sqlite3.Connection) -> None:
    """Create the tables; an older file's log is copied into this schema, in one
    transaction (a file from before notes gets NULL notes)."""
    row = conn.execute("SELECT sql FROM sqlite_master WHERE name = 'entries'").fetchone()
    if row is None or "WITHOUT ROWID" not in row[0].upper():
        conn.executescript(SCHEMA)
        return
    columns = {column[1] for column in conn.execute("PRAGMA table_info(entries)")}
    note = "note" if "note" in columns else "NULL"
    conn.execute("BEGIN IMMEDIATE")
    try:
        conn.execute(f"ALTER TABLE entries RENAME TO {OLD_LOG}")
        for statement in SCHEMA.split(";"):
            conn.execute(statement)
        conn.execute(
            f"INSERT INTO entries SELECT code, n, entry, {note} FROM {OLD_LOG} ORDER BY code, n"
        )
        conn.execute(f"DROP TABLE {OLD_LOG}")
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise


def connect(
    path: Path, synchronous: Synchronous, cache_kib: int = READ_CACHE_KIB
) -> sqlite3.Connection:
    """A connection in autocommit mode (transactions are explicit) with our pragmas."""
    conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    conn.execute("PRAGMA auto_vacuum=INCREMENTAL")  # only takes effect on a new file
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute(f"PRAGMA synchronous={synchronous}")
    conn.execute("PRAGMA wal_autocheckpoint=0")  # the checkpointer's job, off the loop
    conn.execute("PRAGMA busy_timeout=5000")
    conn.execute(f"PRAGMA cache_size=-{cache_kib}")
    return conn


class Writer:
    """Runs write transactions: inline, or in one thread with group commit. Made on the
    event loop whose writes it runs (it keeps the loop: asking for it costs a syscall)."""

    def __init__(self, conn: sqlite3.Connection, threaded: bool) -> None:
        self._loop = asyncio.get_running_loop()
        self.conn = conn
        self.threaded = threaded
        self.transactions = 0  # how many went to disk (a group counts once)
        self.truncations = 0
        self.truncate_wanted = False  # set by the checkpointer: the WAL grew too long
        self._executor = ThreadPoolExecutor(1, "sqlite-writer") if threaded else None
        self._pending: list[tuple[Work, asyncio.Future[None] | Done]] = []
        self._flusher: asyncio.Task[None] | None = None
        self._scheduled = False  # inline: a group is due at the next turn of the loop
        self._held = False  # inline: the checkpointer empties the WAL; transactions wait
        self._reached: tuple[int, asyncio.Future[None]] | None = None  # see `reached`

    async def run(self, work: Work) -> None:
        """Write `work` in a transaction; BusUnavailable (nothing stored) if SQLite fails.

        Whatever every room asks for in one turn of the event loop goes into one
        transaction (SQLite's cost is per transaction far more than per row): inline,
        at the start of the next turn; in the thread, while the previous group is written."""
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.run_soon(work, future)
        try:
            await future
        except sqlite3.Error as error:
            raise BusUnavailable(f"sqlite: {error}") from error

    def run_soon(self, work: Work, done: asyncio.Future[None] | Done) -> None:
        """`run` without waiting: `done` is told (a future's result, or a call with the
        error or None) once the group that holds `work` is written."""
        self._pending.append((work, done))
        if self._flusher is None and not self._scheduled:
            if self._executor is None:
                self._scheduled = True
                self._loop.call_soon(self._flush_inline)
            else:
                self._flusher = asyncio.create_task(self._flush())

    def reached(self, transactions: int) -> asyncio.Future[None]:
        """A future done once `transactions` went to disk in all (the checkpointer's
        wake-up: one waiter at a time, told by the loop after a group is written)."""
        future = self._loop.create_future()
        if self.transactions >= transactions:
            future.set_result(None)
        else:
            self._reached = (transactions, future)
        return future

    def _tell_reached(self) -> None:
        reached = self._reached
        if reached is not None and self.transactions >= reached[0]:
            self._reached = None
            if not reached[1].done():  # cancelled: its waiter gave up
                reached[1].set_result(None)

    def hold(self) -> None:
        """Inline (on the loop): no transaction until `release` (none runs now: they run
        on the loop too), so that another connection may empty the WAL."""
        self._held = True

    def release(self) -> None:
        """Write what waited, at the next turn of the loop."""
        self._held = False
        if self._pending and not self._scheduled:
            self._scheduled = True
            self._loop.call_soon(self._flush_inline)

    def _flush_inline(self, closing: bool = False) -> None:
        self._scheduled = False
        if self._held and not closing:
            return  # `release` writes it
        group, self._pending = self._pending, []
        if not group:  # `close` wrote it already
            return
        try:
            errors = self._write([work for work, _ in group])
        except Exception as error:  # the whole group failed (disk full, I/O error)
            errors = [error] * len(group)
        self._settle(group, errors)
        if self._reached is not None:
            self._tell_reached()

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
                self._settle(group, errors)
                if self._reached is not None:
                    self._tell_reached()
        finally:
            self._flusher = None

    @staticmethod
    def _settle(
        group: list[tuple[Work, asyncio.Future[None] | Done]], errors: list[Exception | None]
    ) -> None:
        for (_, done), error_or_none in zip(group, errors):
            if not isinstance(done, asyncio.Future):
                try:
                    done(error_or_none)
                except Exception:  # one room's fan-out must not keep the others' answers
                    log.exception("sqlite: a commit's follow-up failed")
            elif done.done():  # its waiter was cancelled (the write landed all the same)
                continue
            elif error_or_none is None:
                done.set_result(None)
            else:
                done.set_exception(error_or_none)

    def _write(self, group: list[Work]) -> list[Exception | None]:
        """One transaction for the whole group. Should an item fail, the group is
        written again with each item in a savepoint, so that it spoils only itself."""
        conn = self.conn
        conn.execute("BEGIN IMMEDIATE")
        try:
            try:
                for work in group:
                    work(conn)
            except sqlite3.Error:
                conn.execute("ROLLBACK")
                if len(group) == 1:
                    raise
                conn.execute("BEGIN IMMEDIATE")
                errors = [self._savepoint(work) for work in group]
            else:
                errors = [None] * len(group)
            conn.execute("COMMIT")
        except sqlite3.Error as error:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            if len(group) == 1:
                return [error]
            raise
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
        self.transactions += 1
        if self.truncate_wanted and self.threaded:  # inline: the checkpointer's thread
            self.truncate()
        return errors

    def _savepoint(self, work: Work) -> Exception | None:
        conn = self.conn
        conn.execute("SAVEPOINT item")
        try:
            work(conn)
        except sqlite3.Error as error:
            conn.execute("ROLLBACK TO item")
            return error
        finally:
            conn.execute("RELEASE item")
        return None

    def truncate(self, conn: sqlite3.Connection | None = None) -> None:
        """Empty a WAL that steady writes kept from starting over, between two writes:
        in the writer's thread (FULL), or in the checkpointer's while the writer holds
        its transactions back (NORMAL), so that no write waits on a lock another
        connection holds (such a wait sleeps in SQLite's busy handler) and the event
        loop never waits for the copy and the fsync. What is left to copy is little,
        since the checkpointer copied the rest moments ago."""
        self.truncate_wanted = False
        try:
            (conn or self.conn).execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
        except sqlite3.Error:
            return  # the next request tries again
        self.truncations += 1

    async def vacuum(self) -> None:
        """Give the pages of deleted rooms back to the file system."""
        if self._executor is None:
            self._vacuum()
        else:
            await asyncio.get_running_loop().run_in_executor(self._executor, self._vacuum)

    def _vacuum(self) -> None:
        self.conn.execute("PRAGMA incremental_vacuum").fetchall()  # each step frees a page

    async def close(self) -> None:
        if self._executor is None:
            self._flush_inline(closing=True)
        if self._flusher is not None:
            await asyncio.gather(self._flusher, return_exceptions=True)
        if self._executor is not None:
            self._executor.shutdown(wait=True)
        self.conn.close()


class Checkpointer:
    """Copies the WAL into the database file from a thread and connection of its own."""

    def __init__(self, path: Path, synchronous: Synchronous, writer: Writer) -> None:
        self.conn = connect(path, synchronous)
        self.writer = writer
        self.wal = Path(f"{path}-wal")
        self.checkpoints = 0
        self._executor = ThreadPoolExecutor(1, "sqlite-checkpoint", initializer=_yield_the_cpu)
        # Emptying the WAL holds the writer back: at the loop's own priority, never behind it.
        self._truncator = ThreadPoolExecutor(1, "sqlite-truncate")
        self._task: asyncio.Task[None] | None = None
        self._closing = False

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name="sqlite-checkpoint")

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        seen = 0  # transactions written by the last checkpoint
        last = loop.time()
        while True:
            await self.writer.reached(seen + 1)  # idle: sleeps here, no timer
            wait = last + CHECKPOINT_SECONDS - loop.time()
            if wait > 0:  # a burst: sooner, after CHECKPOINT_TRANSACTIONS
                burst = self.writer.reached(seen + CHECKPOINT_TRANSACTIONS)
                await asyncio.wait((burst,), timeout=wait)
                burst.cancel()
            if self.writer.truncate_wanted:  # the writer's thread empties it at its next write
                await self.writer.reached(self.writer.transactions + 1)
                continue
            written = self.writer.transactions
            last = loop.time()
            if self._wal_bytes() > WAL_TRUNCATE_BYTES:
                self.writer.truncate_wanted = True  # TRUNCATE checkpoints it all anyway
            else:
                try:
                    await loop.run_in_executor(self._executor, self._checkpoint)
                except sqlite3.Error:  # tried again next time; the WAL just grows meanwhile
                    continue
            seen = written
            if self.writer.truncate_wanted and not self.writer.threaded:
                self.writer.hold()
                try:
                    await loop.run_in_executor(self._truncator, self.writer.truncate, self.conn)
                finally:
                    if not self._closing:  # `close` releases it once the thread is done
                        self.writer.release()

    def _checkpoint(self) -> None:
        """PASSIVE never waits for (nor holds off) the writer, but under steady writes the
        WAL is never wholly copied at the moment a write begins, so it never starts over
        and grows: past WAL_TRUNCATE_BYTES the writer is asked to empty it."""
        self.conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
        self.checkpoints += 1

    def _wal_bytes(self) -> int:
        try:
            return self.wal.stat().st_size
        except FileNotFoundError:
            return 0

    async def close(self) -> None:
        self._closing = True
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
        self._executor.shutdown(wait=True)
        self._truncator.shutdown(wait=True)
        self.writer.release()
        self.conn.close()


def _yield_the_cpu() -> None:
    """The checkpointer's thread runs at the lowest priority (Linux: a thread's own nice),
    so that copying the WAL, a few ms every checkpoint, waits for the event loop
    instead of sharing its core with it while phones wait for their states."""
    if sys.platform == "linux":
        with contextlib.suppress(OSError):
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 19)


class DataDirInUse(RuntimeError):
    """Another process serves this data directory: two owners of one room would diverge."""


def file_of(data_dir: Path) -> Path:
    """Where a data directory keeps its rooms."""
    return Path(data_dir) / "bankit.sqlite3"
