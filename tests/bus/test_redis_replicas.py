"""Acks that survive a promotion, on a real primary and replica (app/bus/redis/replicas.py):
a commit is answered only once the replica has it; one the replica does not confirm in
time is taken back (record, log, cursor, its commands) and answered `unavailable`."""

from __future__ import annotations

import signal
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import orjson
import pytest

from app.bus.base import Frame, Reply
from app.bus.redis.bus import RedisBus, key
from app.bus.redis.sentinel import parse
from tests.bus.conftest import Recorder, new_code, until
from tests.redis_server import RedisServer


@pytest.fixture
def primary_and_replica(tmp_path: Path) -> Iterator[tuple[RedisServer, RedisServer]]:
    (tmp_path / "p").mkdir()
    (tmp_path / "r").mkdir()
    primary = RedisServer(tmp_path / "p", extra=("--repl-diskless-sync-delay", "0"))
    replica = RedisServer(tmp_path / "r", replica_of=primary.port)
    deadline = time.monotonic() + 20
    while primary.command("INFO", "replication").count(b"state=online") < 1:
        assert time.monotonic() < deadline, "the replica never came online"
        time.sleep(0.05)
    yield primary, replica
    if replica.process is not None:
        replica.process.send_signal(signal.SIGCONT)
    replica.stop()
    primary.stop()


@pytest.fixture
async def bus(
    primary_and_replica: tuple[RedisServer, RedisServer],
) -> AsyncIterator[tuple[RedisBus, Recorder]]:
    primary, _ = primary_and_replica
    recorder = Recorder()
    # A wait long enough for a loaded machine's replica, a lease longer than the wait.
    made = RedisBus(primary.url, lease_seconds=5, replica_wait_seconds=1.0)
    await made.start(recorder.on_frame, recorder.on_reply)
    yield made, recorder
    await made.close()


KEEP_MS = 30 * 86400 * 1000  # a room kept longer than the bus's TTL (a group's)


def pttl(server: RedisServer, code: str, part: str) -> int:
    return int(server.command("PTTL", key(code, part)).strip()[1:])


def kept(server: RedisServer, code: str, parts: tuple[str, ...]) -> bool:
    """The room's keys expire its own time from now (a minute's slack), not the bus's."""
    return all(pttl(server, code, part) >= KEEP_MS - 60_000 for part in parts)


async def owned(bus: RedisBus, code: str) -> tuple[int, str]:
    await bus.create_room(code, b"s1", b"e1", keep_seconds=KEEP_MS / 1000)
    epoch = await bus.claim(code)
    assert epoch is not None
    await bus.load_snapshot(code)  # as a new owner restores it
    return epoch, await bus.load_cursor(code)


async def test_with_a_replica_a_commit_is_answered_once_confirmed(
    bus: tuple[RedisBus, Recorder], primary_and_replica: tuple[RedisServer, RedisServer]
) -> None:
    made, recorder = bus
    assert made.min_replicas == 1, "a primary with a replica: 1 by default"
    code = new_code()
    epoch, _ = await owned(made, code)
    await made.subscribe(code)
    await made.submit(code, b"c1")
    cursor = (await made.read_commands(code, "0", 1000))[-1][0]
    answer = Reply(made.node_id, "k1", b'{"type":"ack","id":"a","seq":2}')
    assert await made.commit(
        code, epoch, cursor, b"s2", [b"e2"], [Frame("state", 2, "two")], [answer]
    )
    await until(lambda: recorder.replies and recorder.of(code), what="the answer and the frames")
    assert recorder.replies == [("k1", answer.payload)]
    _, replica = primary_and_replica
    assert b"e2" in replica.command("LRANGE", key(code, "log"), "0", "-1"), "the replica has it"
    primary, _ = primary_and_replica
    parts = ("snap", "log", "cursor", "cmds", "epoch", "keep", "tail", "answers")
    await until(lambda: kept(primary, code, parts), what="what the bus published after, kept")


async def test_a_commit_the_replica_does_not_confirm_is_taken_back_and_refused(
    bus: tuple[RedisBus, Recorder], primary_and_replica: tuple[RedisServer, RedisServer]
) -> None:
    made, recorder = bus
    primary, replica = primary_and_replica
    code = new_code()
    epoch, _ = await owned(made, code)
    await made.submit(code, b"c1")
    cursor = (await made.read_commands(code, "0", 1000))[-1][0]
    assert replica.process is not None
    replica.process.send_signal(signal.SIGSTOP)  # it stops acknowledging: WAIT times out
    answer = Reply(made.node_id, "k1", b'{"type":"ack","id":"a","seq":2}')
    assert not await made.commit(
        code, epoch, cursor, b"s2", [b"e2"], [Frame("state", 2, "t")], [answer]
    )
    await until(lambda: recorder.replies, what="the refusal")
    key_, payload = recorder.replies[0]
    assert key_ == "k1"
    assert orjson.loads(payload) | {"message": ""} == {
        "type": "error",
        "id": "a",
        "code": "unavailable",
        "message": "",
    }
    assert recorder.of(code) == [], "no frame of a commit taken back"
    # As it was: the record, the log, the cursor; and the command is not read again.
    assert await made.load_snapshot(code) == b"s1"
    assert await made.load_log(code) == [b"e1"]
    assert await made.load_cursor(code) == "0"
    assert primary.command("XLEN", key(code, "cmds")).strip() == b":0"
    assert kept(primary, code, ("snap", "log", "cursor", "cmds", "epoch", "keep"))


def test_a_sentinel_url_names_its_sentinels_service_and_database() -> None:
    found = parse("redis+sentinel://u:p%40ss@10.0.0.1:26380,sentinel-2/bankit/3")
    assert found.sentinels == [("10.0.0.1", 26380), ("sentinel-2", 26379)]
    assert (found.service, found.db, found.username, found.password) == ("bankit", 3, "u", "p@ss")
    with pytest.raises(ValueError, match="names its service"):
        parse("redis+sentinel://10.0.0.1:26379")
