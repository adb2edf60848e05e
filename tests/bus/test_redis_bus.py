"""What only the Redis backplane has to show: several processes, lapsing leases, outages."""

from __future__ import annotations

import asyncio
import time

import pytest

import app.bus.redis.subscriber as redis_subscriber
from app.bus.base import BusUnavailable, Frame, Reply
from app.bus.redis.bus import RedisBus, decode_frames, encode_frames
from tests.bus.conftest import Recorder, new_code, until
from tests.redis_server import RedisServer

Pair = list[tuple[RedisBus, Recorder]]


def test_a_frames_message_round_trips() -> None:
    frames = [Frame("state", 7, '{"a":"é\\n"}'), Frame("presence", 7, "{}"), Frame("gone", 0, "")]
    cursor, stamp, back = decode_frames(encode_frames("17-3", frames))
    assert (cursor, back) == ("17-3", frames)
    assert abs(stamp / 1e6 - time.time()) < 5


async def test_a_command_submitted_anywhere_wakes_the_owner(redis_pair: Pair) -> None:
    (owner, _), (other, _) = redis_pair
    code = new_code()
    await other.create_room(code, b"s", b"e")
    assert await owner.claim(code) is not None
    assert await other.claim(code) is None
    assert await owner.read_commands(code, "0", 50) == []
    reader = asyncio.create_task(owner.read_commands(code, "0", 5000))
    await asyncio.sleep(0.05)
    started = time.monotonic()
    await other.submit(code, b"from-the-other-process")
    got = await asyncio.wait_for(reader, 3)
    assert [envelope for _, envelope in got] == [b"from-the-other-process"]
    assert time.monotonic() - started < 0.5


async def test_every_process_gets_the_owners_frames_and_its_own_replies(redis_pair: Pair) -> None:
    (owner, mine), (other, theirs) = redis_pair
    code = new_code()
    await owner.create_room(code, b"s", b"e")
    await owner.subscribe(code)
    await other.subscribe(code)
    epoch = await owner.claim(code)
    await other.submit(code, b"c")
    cursor = (await owner.read_commands(code, "0", 1000))[-1][0]
    frames = [Frame("state", 2, "two"), Frame("presence", 2, "p")]
    answer = Reply(other.node_id, "c:key", b"ack")
    assert await owner.commit(code, epoch, cursor, b"s2", [b"e2"], frames, [answer])
    await until(lambda: len(theirs.of(code)) == 2 and theirs.replies, what="the other's delivery")
    await until(lambda: len(mine.of(code)) == 2, what="the owner's own delivery")
    assert theirs.of(code) == mine.of(code) == frames
    assert theirs.replies == [("c:key", b"ack")] and mine.replies == []
    await other.unsubscribe(code)
    await other.submit(code, b"c2")
    cursor = (await owner.read_commands(code, cursor, 1000))[-1][0]
    assert await owner.commit(code, epoch, cursor, b"s3", [b"e3"], [Frame("state", 3, "three")])
    await until(lambda: len(mine.of(code)) == 3, what="the third frame")
    assert len(theirs.of(code)) == 2, "an unsubscribed process gets nothing more"


async def test_a_lapsed_lease_goes_to_another_and_the_stalled_owner_cannot_write(
    redis_pair: Pair,
) -> None:
    (stalled, _), (taker, _) = redis_pair
    code = new_code()
    await stalled.create_room(code, b"s0", b"e0")
    old = await stalled.claim(code)
    await taker.submit(code, b"c1")
    batch = await stalled.read_commands(code, "0", 1000)
    assert [envelope for _, envelope in batch] == [b"c1"]
    # The owner stalls (a GC pause, SIGSTOP) past its 0.5 s lease before committing.
    new = None
    deadline = time.monotonic() + 3
    while new is None and time.monotonic() < deadline:
        new = await taker.claim(code)
        await asyncio.sleep(0.05)
    assert new is not None and old is not None and new > old
    assert not await stalled.renew(code, old)
    assert not await stalled.commit(code, old, batch[-1][0], b"stale", [b"stale"], [])
    # The new owner resumes after the persisted cursor: c1 is applied once, by it.
    again = await taker.read_commands(code, await taker.load_cursor(code), 1000)
    assert [envelope for _, envelope in again] == [b"c1"]
    assert await taker.commit(code, new, again[-1][0], b"s1", [b"e1"], [])
    assert await taker.load_log(code) == [b"e0", b"e1"]
    assert await taker.load_snapshot(code) == b"s1"


async def test_redis_down_means_unavailable_then_everything_recovers(
    own_redis: RedisServer,
) -> None:
    recorder = Recorder()
    bus = RedisBus(own_redis.url, lease_seconds=0.5, command_timeout=1.0)
    await bus.start(recorder.on_frame, recorder.on_reply)
    try:
        code = new_code()
        await bus.create_room(code, b"s0", b"e0")
        await bus.subscribe(code)
        own_redis.kill()
        started = time.monotonic()
        for call in (
            lambda: bus.load_snapshot(code),
            lambda: bus.submit(code, b"c"),
            lambda: bus.claim(code),
            lambda: bus.create_room(new_code(), b"s", b"e"),
            lambda: bus.commit(code, 1, "1-1", b"s", [], []),
        ):
            with pytest.raises(BusUnavailable):
                await call()
        assert time.monotonic() - started < 6, "a dead Redis must fail fast, not hang"
        assert not await bus.ready()
        own_redis.start()
        await until(bus.ready, what="ready again")
        assert await bus.load_snapshot(code) == b"s0", "AOF kept the room"
        epoch = await bus.claim(code)
        assert epoch is not None
        await bus.submit(code, b"after")
        batch = await bus.read_commands(code, "0", 1000)
        assert await bus.commit(code, epoch, batch[-1][0], b"s1", [b"e1"], [Frame("state", 2, "x")])
        await until(lambda: recorder.of(code), what="frames after the restart")
    finally:
        await bus.close()


async def test_frames_lost_while_resubscribing_come_back_from_the_tail(
    redis_server: RedisServer, redis_pair: Pair, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(redis_subscriber, "BACKOFF_FIRST", 0.5)  # a wide window to publish into
    (owner, _), (listener, heard) = redis_pair
    owner.lease_ms = 60_000  # this test is about the subscription: the lease must not lapse
    code = new_code()
    await owner.create_room(code, b"s", b"e")
    await listener.subscribe(code)
    epoch = await owner.claim(code)
    assert epoch is not None
    redis_server.command("CLIENT", "KILL", "TYPE", "pubsub")
    await until(lambda: not listener._connected.is_set(), what="the listener noticing")
    await owner.submit(code, b"c")
    cursor = (await owner.read_commands(code, "0", 1000))[-1][0]
    missed = [Frame("state", 2, "two"), Frame("presence", 2, "p")]
    assert await owner.commit(code, epoch, cursor, b"s2", [b"e2"], missed)
    await asyncio.sleep(0.05)
    assert heard.of(code) == [], "published while the listener was away"
    await until(lambda: heard.of(code), what="the tail replayed after resubscribing")
    assert heard.of(code) == missed
    # ... and delivered once: a later frame follows it, nothing repeats.
    await owner.submit(code, b"d")
    cursor = (await owner.read_commands(code, cursor, 1000))[-1][0]
    assert await owner.commit(code, epoch, cursor, b"s3", [b"e3"], [Frame("state", 3, "three")])
    await until(lambda: len(heard.of(code)) == 3, what="the next frame")
    assert [frame.seq for frame in heard.of(code)] == [2, 2, 3]


async def test_an_answer_committed_while_the_subscriber_is_away_comes_after_it_reconnects(
    redis_server: RedisServer, redis_pair: Pair, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(redis_subscriber, "BACKOFF_FIRST", 0.5)  # a wide window to commit into
    (owner, _), (sender, heard) = redis_pair
    owner.lease_ms = 60_000  # this test is about the subscription: the lease must not lapse
    code = new_code()
    await owner.create_room(code, b"s", b"e")
    epoch = await owner.claim(code)
    await sender.submit(code, b"c")
    redis_server.command("CLIENT", "KILL", "TYPE", "pubsub")
    await until(lambda: not sender._connected.is_set(), what="the sender noticing")
    cursor = (await owner.read_commands(code, "0", 1000))[-1][0]
    answers = [Reply(sender.node_id, "c:k#1", b"ack"), Reply(sender.node_id, "c:k#2", b"dup")]
    assert await owner.commit(code, epoch, cursor, b"s2", [b"e2"], [], answers)
    assert not sender._connected.is_set() and heard.replies == [], "published while away"
    await until(lambda: len(heard.replies) == 2, what="the answers after reconnecting")
    assert heard.replies == [("c:k#1", b"ack"), ("c:k#2", b"dup")], "both sends, in order"
    # Read again (an overdue answer): the stream is read from where it was left.
    assert await sender.recover_answers(code) == 0
    assert await owner.recover_answers(code) == 0, "nothing for a process that sent nothing"


async def test_committed_answers_are_kept_in_the_rooms_stream_and_published_once(
    redis_pair: Pair,
) -> None:
    (owner, mine), (sender, heard) = redis_pair
    code = new_code()
    await owner.create_room(code, b"s", b"e")
    epoch = await owner.claim(code)
    await sender.submit(code, b"c")
    cursor = (await owner.read_commands(code, "0", 1000))[-1][0]
    answer = Reply(sender.node_id, "c:k#1", b"ack")
    assert await owner.commit(code, epoch, cursor, b"s2", [b"e2"], [], [answer])
    await until(lambda: heard.replies, what="the published answer")
    assert await sender.recover_answers(code) == 1, "kept in the room's stream"
    assert heard.replies == [("c:k#1", b"ack")] * 2, "handed on again: the hub keeps the first"
    assert mine.replies == []
    assert not await owner.commit(code, epoch + 1, cursor, b"x", [], [], [answer])
    assert await sender.recover_answers(code) == 0, "a fenced commit keeps no answer"
    await owner.delete_room(code)
    assert await sender.recover_answers(code) == 0


async def test_nodes_report_their_liveness_and_rooms_their_lapsed_leases(redis_pair: Pair) -> None:
    (first, _), (second, _) = redis_pair
    await first.heartbeat()
    assert await second.live_nodes({first.node_id, "n-dead"}) == {first.node_id}
    code, idle = new_code(), new_code()
    for room in (code, idle):
        await first.create_room(room, b"s", b"e")
    await first.claim(code)
    assert await second.unowned([code, idle]) == [idle]


async def test_the_shared_connection_keeps_replies_in_order_past_a_timeout(
    redis_server: RedisServer,
) -> None:
    from redis.asyncio import ConnectionPool
    from redis.exceptions import ConnectionError as RedisConnectionError
    from redis.exceptions import TimeoutError as RedisTimeoutError

    from app.bus.redis.mux import Multiplexer

    mux = Multiplexer(ConnectionPool.from_url(redis_server.url, protocol=2), timeout=1.0)
    try:
        answers = await asyncio.gather(*(mux.execute("ECHO", str(n)) for n in range(200)))
        assert answers == [str(n).encode() for n in range(200)], "pipelined, in order"
        with pytest.raises(RedisTimeoutError):  # blocks the connection for 1.5 s
            await mux.execute("BLPOP", new_code(), "1.5")
        late = asyncio.create_task(mux.execute("ECHO", "after"))
        assert await late == b"after", "the timed-out reply was dropped, not handed on"
        redis_server.command("CLIENT", "KILL", "TYPE", "normal")
        with pytest.raises((RedisConnectionError, RedisTimeoutError)):
            await mux.execute("BLPOP", new_code(), "1")
        assert await mux.execute("ECHO", "again") == b"again", "a new connection"
    finally:
        await mux.close()
