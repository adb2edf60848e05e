"""The bus contract: every test here runs against MemoryBus, SqliteBus and RedisBus alike."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest

from app.bus.base import Frame, Reply
from app.bus.redis import RedisBus
from tests.bus.conftest import Recorder, new_code, until

Bus = tuple[Any, Recorder]


async def read_all(bus: Any, code: str, after: str, count: int) -> list[tuple[str, bytes]]:
    """Read until `count` commands came back (bounded)."""
    got: list[tuple[str, bytes]] = []
    for _ in range(50):
        got += await bus.read_commands(code, got[-1][0] if got else after, 100)
        if len(got) >= count:
            return got
    raise AssertionError(f"only {len(got)} of {count} commands came back")


async def test_a_taken_code_is_refused(bus: Bus) -> None:
    made, _ = bus
    code = new_code()
    assert await made.create_room(code, b"snap", b"entry")
    assert not await made.create_room(code, b"other", b"other")
    assert await made.load_snapshot(code) == b"snap"
    assert await made.load_log(code) == [b"entry"]
    assert await made.load_cursor(code) == "0"


async def test_an_unknown_room_is_refused(bus: Bus) -> None:
    made, _ = bus
    code = new_code()
    with pytest.raises(KeyError):
        await made.submit(code, b"{}")
    assert await made.claim(code) is None
    assert await made.load_snapshot(code) is None
    assert await made.load_log(code) == []
    assert await made.load_cursor(code) == "0"


async def test_commands_come_back_in_the_order_they_were_submitted(bus: Bus) -> None:
    made, _ = bus
    code = new_code()
    await made.create_room(code, b"s", b"e")
    assert await made.claim(code) is not None
    sent = [f"cmd-{n}".encode() for n in range(30)]
    for envelope in sent:
        await made.submit(code, envelope)
    racing = [f"race-{n}".encode() for n in range(30)]
    await asyncio.gather(*(made.submit(code, envelope) for envelope in racing))
    got = await read_all(made, code, "0", len(sent) + len(racing))
    assert [envelope for _, envelope in got[: len(sent)]] == sent
    assert sorted(envelope for _, envelope in got[len(sent) :]) == sorted(racing)
    assert len({entry_id for entry_id, _ in got}) == len(got), "one place in the order each"


async def test_a_read_waits_for_the_first_command_then_returns_at_once(bus: Bus) -> None:
    made, _ = bus
    if isinstance(made, RedisBus):  # about waking the owner: its lease must not lapse
        made.lease_ms = 60_000  # (a lapsed lease pokes nobody: a busy machine's 0.5 s)
    code = new_code()
    await made.create_room(code, b"s", b"e")
    assert await made.claim(code) is not None
    started = time.monotonic()
    assert await made.read_commands(code, "0", 150) == []
    assert time.monotonic() - started >= 0.1
    reader = asyncio.create_task(made.read_commands(code, "0", 5000))
    await asyncio.sleep(0.05)
    started = time.monotonic()
    await made.submit(code, b"late")
    got = await asyncio.wait_for(reader, 3)
    assert [envelope for _, envelope in got] == [b"late"]
    assert time.monotonic() - started < 1.0, "a waiting owner must wake when a command lands"


async def test_a_commit_stores_snapshot_log_and_cursor_together(bus: Bus) -> None:
    made, _ = bus
    code = new_code()
    await made.create_room(code, b"s0", b"e0")
    epoch = await made.claim(code)
    for n in range(3):
        await made.submit(code, f"c{n}".encode())
    got = await read_all(made, code, "0", 3)
    cursor = got[-1][0]
    assert await made.commit(code, epoch, cursor, b"s3", [b"e1", b"e2", b"e3"], [])
    assert await made.load_snapshot(code) == b"s3"
    assert await made.load_log(code) == [b"e0", b"e1", b"e2", b"e3"]
    assert await made.load_cursor(code) == cursor
    await made.submit(code, b"c3")
    after = await read_all(made, code, cursor, 1)
    assert [envelope for _, envelope in after] == [b"c3"], "nothing before the cursor again"


async def test_one_owner_at_a_time_and_each_claim_a_new_epoch(bus: Bus) -> None:
    made, _ = bus
    code = new_code()
    await made.create_room(code, b"s", b"e")
    first = await made.claim(code)
    assert first is not None
    assert await made.claim(code) is None
    assert await made.renew(code, first)
    await made.release(code, first + 100)  # a stranger's release changes nothing
    assert await made.claim(code) is None
    await made.release(code, first)
    second = await made.claim(code)
    assert second is not None and second > first
    assert not await made.renew(code, first)
    assert await made.renew(code, second)


async def test_a_fenced_epoch_cannot_commit(bus: Bus) -> None:
    made, recorder = bus
    code = new_code()
    await made.create_room(code, b"s0", b"e0")
    await made.subscribe(code)
    old = await made.claim(code)
    await made.release(code, old)
    new = await made.claim(code)
    stale = Frame("state", 2, "stale")
    assert not await made.commit(code, old, "1-1", b"stale", [b"stale"], [stale])
    assert await made.load_snapshot(code) == b"s0"
    assert await made.load_log(code) == [b"e0"]
    assert await made.load_cursor(code) == "0"
    fresh = Frame("state", 2, "fresh")
    assert await made.commit(code, new, "1-2", b"s1", [b"e1"], [fresh])
    await until(lambda: recorder.of(code), what="the fresh frame")
    assert recorder.of(code) == [fresh]


async def test_frames_reach_on_frame_in_commit_order(bus: Bus) -> None:
    made, recorder = bus
    code = new_code()
    await made.create_room(code, b"s", b"e")
    await made.subscribe(code)
    epoch = await made.claim(code)
    expected: list[Frame] = []
    for n in range(1, 21):
        await made.submit(code, b"x")
        cursor = (await read_all(made, code, "0", 1))[-1][0]
        frames = [Frame("state", n + 1, f'{{"seq":{n + 1},"é":"ü"}}')]
        if n % 5 == 0:
            frames += [Frame("presence", n + 1, '{"type":"presence"}'), Frame("kick", n + 1, "p1")]
        assert await made.commit(code, epoch, cursor, b"s", [b"e"], frames)
        expected += frames
    await until(lambda: len(recorder.of(code)) >= len(expected), what="every frame")
    assert recorder.of(code) == expected


async def test_a_commits_answers_reach_on_reply(bus: Bus) -> None:
    made, recorder = bus
    code = new_code()
    await made.create_room(code, b"s", b"e")
    epoch = await made.claim(code)
    await made.submit(code, b"x")
    cursor = (await read_all(made, code, "0", 1))[-1][0]
    answer = Reply(made.node_id, "c:1234", b'{"type":"ack","id":"a","seq":3}')
    assert await made.commit(code, epoch, cursor, b"s2", [b"e2"], [], [answer])
    await until(lambda: recorder.replies, what="the reply")
    assert recorder.replies == [("c:1234", b'{"type":"ack","id":"a","seq":3}')]


async def test_deleting_a_room_says_gone_and_forgets_it(bus: Bus) -> None:
    made, recorder = bus
    code = new_code()
    await made.create_room(code, b"s", b"e")
    await made.subscribe(code)
    await made.delete_room(code)
    await until(lambda: recorder.of(code), what="the gone frame")
    assert [frame.kind for frame in recorder.of(code)] == ["gone"]
    assert await made.load_snapshot(code) is None
    with pytest.raises(KeyError):
        await made.submit(code, b"{}")


async def test_a_ready_bus_says_so(bus: Bus) -> None:
    made, _ = bus
    assert await made.ready()
