"""SqliteBus beyond the contract: what a restart keeps, what a delete frees, its settings."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
import time
import tracemalloc
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from app.bus.base import BusUnavailable, Frame
from app.bus.sqlite.bus import DataDirInUse, SqliteBus
from app.bus.sqlite.file import CHECKPOINT_SECONDS, CHECKPOINT_TRANSACTIONS, Writer
from tests.bus.conftest import Recorder, new_code

_open: list[SqliteBus] = []


@pytest.fixture(autouse=True)
async def close_what_a_test_left_open() -> AsyncIterator[None]:
    """A failed test's bus still lets go of its file and lock, so the next test is not blamed."""
    yield
    while _open:
        await _open.pop().close()


async def opened(path: Path, synchronous: str = "NORMAL") -> tuple[SqliteBus, Recorder]:
    recorder = Recorder()
    bus = SqliteBus(path, synchronous)  # type: ignore[arg-type]
    await bus.start(recorder.on_frame, recorder.on_reply)
    _open.append(bus)
    return bus, recorder


def rows(path: Path) -> tuple[int, int]:
    """(rooms, log entries) on disk, read by a connection of the test's own."""
    with sqlite3.connect(path) as conn:
        rooms = conn.execute("SELECT count(*) FROM rooms").fetchone()[0]
        entries = conn.execute("SELECT count(*) FROM entries").fetchone()[0]
    return int(rooms), int(entries)


async def play(bus: SqliteBus, code: str, commands: int) -> str:
    """Own the room, submit and commit `commands` commands one by one; the last cursor."""
    epoch = await bus.claim(code)
    assert epoch is not None
    cursor = await bus.load_cursor(code)
    for n in range(commands):
        await bus.submit(code, f"c{n}".encode())
        batch = await bus.read_commands(code, cursor, 1000)
        cursor = batch[-1][0]
        assert await bus.commit(code, epoch, cursor, f"s{n}".encode(), [f"e{n}".encode()], [])
    await bus.release(code, epoch)
    return cursor


@pytest.mark.parametrize("synchronous", ["NORMAL", "FULL"])
async def test_a_reopened_file_has_the_same_rooms_snapshots_logs_and_cursors(
    tmp_path: Path, synchronous: str
) -> None:
    path = tmp_path / "bankit.sqlite3"
    bus, _ = await opened(path, synchronous)
    code, other = new_code(), new_code()
    assert await bus.create_room(code, b"s", b"e")
    assert await bus.create_room(other, b"o", b"o0")
    cursor = await play(bus, code, 3)
    await bus.close()

    again, _ = await opened(path, synchronous)
    assert sorted(await again.stored_rooms()) == sorted([code, other])
    assert await again.load_snapshot(code) == b"s2"
    assert await again.load_log(code) == [b"e", b"e0", b"e1", b"e2"]
    assert await again.load_cursor(code) == cursor == "3"
    assert await again.load_cursor(other) == "0"
    assert not await again.create_room(code, b"x", b"x"), "a stored code stays taken"
    await again.close()


OLD_ENTRIES = """CREATE TABLE entries (
    code TEXT NOT NULL, n INTEGER NOT NULL, entry BLOB NOT NULL,{note}
    PRIMARY KEY (code, n)
) WITHOUT ROWID"""


@pytest.mark.parametrize("with_notes", [True, False])
async def test_a_file_whose_log_is_keyed_by_room_keeps_every_row_in_the_new_schema(
    tmp_path: Path, with_notes: bool
) -> None:
    """Files made before the log became a rowid table (and before notes) open as they were."""
    path = tmp_path / "bankit.sqlite3"
    code, other = new_code(), new_code()
    with sqlite3.connect(path) as conn:
        conn.execute(
            "CREATE TABLE rooms (code TEXT PRIMARY KEY, snapshot BLOB NOT NULL,"
            " cursor TEXT NOT NULL, log_len INTEGER NOT NULL)"
        )
        conn.execute(OLD_ENTRIES.format(note=" note BLOB," if with_notes else ""))
        for room, entries in ((code, 3), (other, 2)):
            conn.execute("INSERT INTO rooms VALUES (?, 's', '0', ?)", (room, entries))
            for n in reversed(range(entries)):  # the order rows were written in is not kept
                values = (room, n, f"{room}{n}".encode(), *((b"{}",) if with_notes else ()))
                conn.execute(f"INSERT INTO entries VALUES ({', '.join('?' * len(values))})", values)
    bus, _ = await opened(path)
    assert await bus.load_log(code) == [f"{code}{n}".encode() for n in range(3)]
    note = b"{}" if with_notes else None
    assert await bus.load_journal(other) == (2, [(f"{other}{n}".encode(), note) for n in range(2)])
    epoch = await bus.claim(code)
    assert epoch is not None and await bus.append(code, epoch, "1", [(b"e3", b"{}")], None, [])
    assert (await bus.load_log(code))[-1] == b"e3"
    await bus.close()
    with sqlite3.connect(path) as conn:
        (schema,) = conn.execute("SELECT sql FROM sqlite_master WHERE name = 'entries'").fetchone()
        tables = {name for (name,) in conn.execute("SELECT name FROM sqlite_master")}
    assert "WITHOUT ROWID" not in schema.upper()
    assert tables == {"rooms", "sqlite_autoindex_rooms_1", "entries", "entries_of_room"}


async def test_after_a_restart_new_commands_sort_after_the_stored_cursor(tmp_path: Path) -> None:
    path = tmp_path / "bankit.sqlite3"
    bus, _ = await opened(path)
    code = new_code()
    await bus.create_room(code, b"s", b"e")
    before = await play(bus, code, 5)
    await bus.close()

    again, _ = await opened(path)
    epoch = await again.claim(code)
    assert epoch is not None, "nobody owns a room after a restart"
    await again.submit(code, b"next")
    [(entry_id, envelope)] = await again.read_commands(code, before, 1000)
    assert envelope == b"next" and int(entry_id) > int(before)
    assert await again.commit(code, epoch, entry_id, b"s5", [b"e5"], [])
    assert await again.load_log(code) == [b"e"] + [f"e{n}".encode() for n in range(6)]
    assert await again.load_cursor(code) == entry_id
    await again.close()


async def test_deleting_rooms_removes_their_rows_and_the_file_stays_bounded(
    tmp_path: Path,
) -> None:
    path = tmp_path / "bankit.sqlite3"
    bus, recorder = await opened(path)
    assert bus.pragma("auto_vacuum") == (2, 2), "INCREMENTAL"
    empty = bus.pragma("page_count")[0]
    snapshot = b"x" * 2000
    pages, sizes = [], []
    for _ in range(4):
        codes = [new_code() for _ in range(150)]
        for code in codes:
            assert await bus.create_room(code, snapshot, b"e" * 300)
            await play(bus, code, 3)
        assert rows(path) == (150, 150 * 4)
        assert bus.pragma("page_count")[0] > empty + 10, "the rooms took pages"
        for code in codes:
            await bus.delete_room(code)
        assert rows(path) == (0, 0)
        pages.append(bus.pragma("page_count")[0])
        sizes.append(path.stat().st_size)
    assert [frame.kind for _, frame in recorder.frames] == ["gone"] * 600
    assert pages == [empty] * 4, "the pages of deleted rooms went back to the file system"
    assert bus.pragma("freelist_count")[0] == 0
    # The file itself shrinks at the WAL's checkpoints (every ~1000 pages written).
    assert max(sizes) < 256 * 1024, f"the file grew: {sizes}"
    await bus.close()


@pytest.mark.parametrize(("synchronous", "level"), [("NORMAL", 1), ("FULL", 2)])
async def test_the_synchronous_setting_is_applied(
    tmp_path: Path, synchronous: str, level: int
) -> None:
    bus, _ = await opened(tmp_path / "bankit.sqlite3", synchronous)
    assert bus.pragma("synchronous") == (level, level)
    assert bus.pragma("journal_mode") == ("wal", "wal")
    assert bus.pragma("cache_size") == (-65_536, -2_048), "KiB: the writer holds live rooms"
    assert bus.threaded is (synchronous == "FULL"), "an fsync per commit goes to the thread"
    await bus.close()


async def test_full_commits_of_many_rooms_share_transactions(tmp_path: Path) -> None:
    bus, recorder = await opened(tmp_path / "bankit.sqlite3", "FULL")
    codes = [new_code() for _ in range(40)]
    await asyncio.gather(*(bus.create_room(code, b"s", b"e") for code in codes))
    epochs = [await bus.claim(code) for code in codes]
    before = bus.transactions
    done = await asyncio.gather(
        *(bus.commit(code, epoch, "1", b"s1", [b"e1"], []) for code, epoch in zip(codes, epochs))
    )
    assert all(done)
    assert bus.transactions - before < len(codes) / 4, "one fsync for many rooms"
    for code in codes:
        assert await bus.load_log(code) == [b"e", b"e1"]
    await bus.close()


async def test_a_second_process_on_the_same_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "bankit.sqlite3"
    bus, _ = await opened(path)
    with pytest.raises(DataDirInUse):
        await opened(path)
    await bus.close()
    again, _ = await opened(path)
    assert await again.ready()
    await again.close()


async def test_a_failed_write_is_unavailable_and_changes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "bankit.sqlite3"
    bus, recorder = await opened(path)
    code = new_code()
    await bus.create_room(code, b"s", b"e")
    epoch = await bus.claim(code)
    with sqlite3.connect(path) as conn:  # a stray row where the next entry would go
        conn.execute("INSERT INTO entries VALUES (?, 1, ?, NULL)", (code, b"stray"))
    with pytest.raises(BusUnavailable):
        await bus.commit(code, epoch, "1", b"s1", [b"e1"], [], [])
    assert await bus.load_snapshot(code) == b"s"
    assert await bus.load_cursor(code) == "0"
    assert recorder.frames == []
    await bus.close()


async def test_a_checkpoint_follows_writes_a_second_later_or_sooner_in_a_burst(
    tmp_path: Path,
) -> None:
    """The writer wakes the checkpointer: one write is checkpointed about
    CHECKPOINT_SECONDS after the last checkpoint, a burst of CHECKPOINT_TRANSACTIONS at
    once, and a bus that writes nothing does not checkpoint (nor poll: no timer)."""
    bus, _ = await opened(tmp_path / "bankit.sqlite3")
    code = new_code()
    await bus.create_room(code, b"s", b"e")
    epoch = await bus.claim(code)
    assert epoch is not None

    async def checkpointed(after: int, within: float) -> float:
        started = time.monotonic()
        while bus.checkpoints <= after:
            assert time.monotonic() - started < within, "no checkpoint came"
            await asyncio.sleep(0.01)
        return time.monotonic() - started

    await checkpointed(0, 3 * CHECKPOINT_SECONDS)  # the room's creation
    idle = bus.checkpoints
    selector = asyncio.get_running_loop()._selector  # type: ignore[attr-defined]
    select, wakeups = selector.select, 0

    def counted(timeout: float | None = None) -> object:
        nonlocal wakeups
        wakeups += 1
        return select(timeout)

    selector.select = counted
    try:
        await asyncio.sleep(CHECKPOINT_SECONDS * 1.5)
    finally:
        selector.select = select
    assert bus.checkpoints == idle, "nothing written: no checkpoint"
    assert wakeups <= 3, f"the loop woke {wakeups} times in an idle 1.5 s (a poll?)"

    assert await bus.commit(code, epoch, "1", b"s", [b"e"], [])
    assert await checkpointed(idle, 3 * CHECKPOINT_SECONDS) < 2 * CHECKPOINT_SECONDS

    once = bus.checkpoints
    started = time.monotonic()
    for n in range(2, CHECKPOINT_TRANSACTIONS + 2):  # one transaction each (awaited)
        assert await bus.commit(code, epoch, str(n), b"s", [b"e"], [])
    burst = time.monotonic() - started
    if burst < CHECKPOINT_SECONDS / 2:  # fast enough to tell "sooner" from "a second later"
        assert await checkpointed(once, CHECKPOINT_SECONDS) < CHECKPOINT_SECONDS / 2
    else:
        await checkpointed(once, 3 * CHECKPOINT_SECONDS)
    await bus.close()


async def test_checkpoints_run_off_the_writer_and_keep_the_wal_bounded(tmp_path: Path) -> None:
    path = tmp_path / "bankit.sqlite3"
    bus, _ = await opened(path)
    assert bus.pragma("wal_autocheckpoint") == (0, 0), "the writer never checkpoints itself"
    code = new_code()
    await bus.create_room(code, b"s", b"e")
    epoch = await bus.claim(code)
    wal = Path(str(path) + "-wal")
    largest, n, deadline = 0, 0, time.monotonic() + 20
    while bus.truncations < 2 and time.monotonic() < deadline:  # writes all along
        n += 1
        assert await bus.commit(code, epoch, str(n), b"x" * 2000, [b"e" * 300], [])
        if n % 50 == 0:
            await asyncio.sleep(0.002)
            largest = max(largest, wal.stat().st_size)
    assert bus.truncations == 2, "the WAL was emptied, twice"
    assert bus.checkpoints >= 1, "and checkpointed in between, off the writer"
    assert largest < 64 * 1024 * 1024, (
        f"the WAL grew to {largest} bytes (without TRUNCATE: without bound)"
    )
    assert len(await bus.load_log(code)) == 1 + n
    await bus.close()


@pytest.mark.parametrize(
    ("synchronous", "thread"), [("NORMAL", "sqlite-truncate"), ("FULL", "sqlite-writer")]
)
async def test_the_wal_is_emptied_off_the_event_loop_and_no_commit_is_lost(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, synchronous: str, thread: str
) -> None:
    """Emptying the WAL copies and fsyncs: never on the loop's thread (NORMAL commits run
    there). Meanwhile the writer holds its transactions back, and they all land after."""
    threads: list[str] = []
    truncate = Writer.truncate

    def watched(self: Writer, conn: sqlite3.Connection | None = None) -> None:
        threads.append(threading.current_thread().name)
        truncate(self, conn)

    monkeypatch.setattr(Writer, "truncate", watched)
    bus, recorder = await opened(tmp_path / "bankit.sqlite3", synchronous)
    code = new_code()
    await bus.create_room(code, b"s", b"e")
    epoch = await bus.claim(code)
    n, deadline = 0, time.monotonic() + 30
    while bus.truncations < 2 and time.monotonic() < deadline:
        n += 1
        frame = Frame("state", n, "{}")
        assert await bus.commit(code, epoch, str(n), b"x" * 2000, [b"e" * 300], [frame])
    assert bus.truncations == 2, "the WAL was emptied twice"
    assert threads and all(name.startswith(thread) for name in threads), threads
    assert [f.seq for _, f in recorder.frames] == list(range(1, n + 1)), "every commit published"
    await bus.close()
    again, _ = await opened(tmp_path / "bankit.sqlite3", synchronous)
    assert len(await again.load_log(code)) == 1 + n, "and every one is on disk"
    await again.close()


async def test_a_cancelled_full_commit_still_lands_and_the_log_goes_on(tmp_path: Path) -> None:
    bus, recorder = await opened(tmp_path / "bankit.sqlite3", "FULL")
    code = new_code()
    await bus.create_room(code, b"s", b"e")
    epoch = await bus.claim(code)
    frame = Frame("state", 2, "{}")
    waiting = asyncio.create_task(bus.commit(code, epoch, "1", b"s1", [b"e1"], [frame]))
    await asyncio.sleep(0)  # one turn of the loop: the commit is queued for the writer
    waiting.cancel()
    await asyncio.gather(waiting, return_exceptions=True)
    assert await bus.commit(code, epoch, "2", b"s2", [b"e2"], [])
    assert await bus.load_log(code) == [b"e", b"e1", b"e2"]
    assert recorder.frames == [], "the cancelled commit published nothing"
    await bus.close()


async def test_a_room_waiting_on_disk_costs_a_few_hundred_bytes_of_memory(tmp_path: Path) -> None:
    """Finished rooms stay viewable for half an hour (a busy night: thousands of them):
    what the bus keeps of one that no actor runs is its counters, not an idle inbox."""
    path = tmp_path / "bankit.sqlite3"
    bus, _ = await opened(path)
    played = [new_code() for _ in range(20)]
    for code in played:
        await bus.create_room(code, b"s", b"e")
        await play(bus, code, 2)  # claimed, an inbox used, released
    await bus.close()
    with sqlite3.connect(path) as conn:  # and 2,000 more, as an earlier run left them
        stored = [new_code() + str(n) for n in range(2_000)]
        conn.executemany("INSERT INTO rooms VALUES (?, 's', '0', 1)", [(c,) for c in stored])
        conn.executemany("INSERT INTO entries VALUES (?, 0, 'e', NULL)", [(c,) for c in stored])

    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        again, _ = await opened(path)
        after = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    assert len(await again.stored_rooms()) == 2_020
    per_room = (after - before) / 2_020
    assert per_room < 400, f"{per_room:.0f} bytes of memory per stored room"
    for code in played:  # an inbox is made again when its room runs again
        assert await play(again, code, 1) == "3"
    await again.close()
