"""What only Redis Cluster adds: rooms on every master, shard channels, slot routing.

Two RedisBus instances (two processes) on a real local 3-master cluster; each test
uses several rooms, so that their slots (and channels) are spread over the masters.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

import app.bus.redis.subscriber as redis_subscriber
from app.bus.base import BusUnavailable, Frame, Reply
from app.bus.redis.bus import RedisBus
from app.bus.redis.cluster import ClusterRouter, cluster_seeds
from app.bus.redis.wire import key
from tests.bus.conftest import Recorder, new_code, until
from tests.redis_cluster import RedisCluster

Pair = list[tuple[RedisBus, Recorder]]


@pytest.fixture
async def cluster_pair(redis_cluster: RedisCluster) -> AsyncIterator[Pair]:
    pair = []
    for _ in range(2):
        recorder = Recorder()
        made = RedisBus(redis_cluster.url, lease_seconds=0.5)
        await made.start(recorder.on_frame, recorder.on_reply)
        pair.append((made, recorder))
    yield pair
    for made, _ in pair:
        await made.close()


def codes_on_every_master(cluster: RedisCluster, count: int = 6) -> list[str]:
    """Fresh room codes, at least one whose slot each master holds."""
    codes: list[str] = []
    while len(codes) < count or {cluster.node_of(key(c, "snap")) for c in codes} != {0, 1, 2}:
        codes.append(new_code())
    return codes


def test_a_cluster_url_names_every_seed_and_keeps_the_password() -> None:
    plain, seeds = cluster_seeds("redis+cluster://:pw@10.0.0.1:7000,10.0.0.2:7001")
    assert plain == "redis://:pw@10.0.0.1:7000"
    assert seeds == [("10.0.0.1", 7000), ("10.0.0.2", 7001)]


async def test_commands_submitted_anywhere_wake_owners_on_every_master(
    redis_cluster: RedisCluster, cluster_pair: Pair
) -> None:
    (owner, _), (other, _) = cluster_pair
    codes = codes_on_every_master(redis_cluster)
    for code in codes:
        await other.create_room(code, b"s", b"e")
        assert await owner.claim(code) is not None
    readers = [asyncio.create_task(owner.read_commands(code, "0", 5000)) for code in codes]
    await asyncio.sleep(0.05)
    for code in codes:
        await other.submit(code, b"for " + code.encode())  # a poke SPUBLISHed after the script
    got = await asyncio.wait_for(asyncio.gather(*readers), 3)
    assert [[envelope for _, envelope in batch] for batch in got] == [
        [b"for " + code.encode()] for code in codes
    ]


async def test_frames_of_rooms_on_every_master_and_answers_reach_every_process(
    redis_cluster: RedisCluster, cluster_pair: Pair
) -> None:
    (owner, mine), (other, theirs) = cluster_pair
    codes = codes_on_every_master(redis_cluster)
    for n, code in enumerate(codes):
        await owner.create_room(code, b"s", b"e")
        await owner.subscribe(code)
        await other.subscribe(code)
        epoch = await owner.claim(code)
        await other.submit(code, b"c")
        cursor = (await owner.read_commands(code, "0", 1000))[-1][0]
        frames = [Frame("state", 2, code)]
        answer = Reply(other.node_id, f"k{n}", b"ack")
        assert await owner.commit(code, epoch, cursor, b"s2", [b"e2"], frames, [answer])
    want = [(f"k{n}", b"ack") for n in range(len(codes))]
    await until(lambda: sorted(theirs.replies) == sorted(want), what="every answer")
    await until(lambda: all(mine.of(c) and theirs.of(c) for c in codes), what="every frame")
    for code in codes:
        assert mine.of(code) == theirs.of(code) == [Frame("state", 2, code)]
    assert mine.replies == []
    await owner.delete_room(codes[0])
    await until(lambda: theirs.of(codes[0])[-1].kind == "gone", what="gone, SPUBLISHed")
    stats = [node.command("INFO", "commandstats") for node in redis_cluster.nodes]
    assert all(b"cmdstat_spublish:" in info for info in stats), "every master carried some"
    assert not any(b"cmdstat_publish:" in info for info in stats), "no cluster-wide PUBLISH"


async def test_after_every_master_drops_the_subscribers_answers_and_tails_come_back(
    redis_cluster: RedisCluster, cluster_pair: Pair, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(redis_subscriber, "BACKOFF_FIRST", 0.5)  # a wide window to commit into
    (owner, _), (sender, heard) = cluster_pair
    owner.lease_ms = 60_000  # this test is about the subscription: the lease must not lapse
    codes = codes_on_every_master(redis_cluster)
    epochs = {}
    for code in codes:
        await owner.create_room(code, b"s", b"e")
        await sender.subscribe(code)
        epochs[code] = await owner.claim(code)
        await sender.submit(code, b"c")
    for node in redis_cluster.nodes:
        node.command("CLIENT", "KILL", "TYPE", "pubsub")
    await until(lambda: not sender._connected.is_set(), what="the sender noticing")
    for n, code in enumerate(codes):
        cursor = (await owner.read_commands(code, "0", 1000))[-1][0]
        answer = Reply(sender.node_id, f"k{n}", b"ack")
        frames = [Frame("state", 2, code)]
        assert await owner.commit(code, epochs[code], cursor, b"s2", [b"e2"], frames, [answer])
    assert heard.replies == [] and heard.frames == [], "published while away"
    want = sorted((f"k{n}", b"ack") for n in range(len(codes)))
    await until(lambda: sorted(heard.replies) == want, what="answers from the room streams")
    await until(lambda: all(heard.of(code) for code in codes), what="tails from every master")
    assert all(heard.of(code) == [Frame("state", 2, code)] for code in codes)
    assert await sender.ready()


async def test_liveness_and_lapsed_leases_are_read_across_slots(
    redis_cluster: RedisCluster, cluster_pair: Pair
) -> None:
    (first, _), (second, _) = cluster_pair
    await first.heartbeat()
    await second.heartbeat()
    assert await first.live_nodes({first.node_id, second.node_id, "n-dead"}) == {
        first.node_id,
        second.node_id,
    }
    codes = codes_on_every_master(redis_cluster, 20)
    for code in codes:
        await first.create_room(code, b"s", b"e")
    owned = codes[::2]
    for code in owned:
        await first.claim(code)
    assert await second.unowned(codes) == [c for c in codes if c not in owned], "in order"


async def test_a_stale_slot_map_retries_reads_but_never_a_write(
    redis_cluster: RedisCluster, cluster_pair: Pair
) -> None:
    (bus, _), _ = cluster_pair
    router = bus._mux
    assert isinstance(router, ClusterRouter)
    code = new_code()
    await bus.create_room(code, b"snap", b"e")
    assert await bus.claim(code) is not None  # its own submits then poke it locally
    wrong = next(m for m in router.masters if m != router.master_of(key(code, "snap")))
    router._slots = [wrong] * len(router._slots)
    assert await bus.load_snapshot(code) == b"snap", "MOVED: the map refreshed, read again"
    router._slots = [wrong] * len(router._slots)
    with pytest.raises(BusUnavailable):
        await bus.submit(code, b"not twice")  # MOVED: it did not run, and is not retried
    assert await bus.read_commands(code, "0", 0) == [], "the refused write left nothing"
    await bus.submit(code, b"once")  # the map is right again
    assert [e for _, e in await bus.read_commands(code, "0", 0)] == [b"once"]


async def test_a_plain_url_with_the_cluster_setting_finds_every_master(
    redis_cluster: RedisCluster,
) -> None:
    recorder = Recorder()
    bus = RedisBus(redis_cluster.nodes[1].url.removesuffix("/0"), cluster=True)
    await bus.start(recorder.on_frame, recorder.on_reply)
    try:
        assert await bus.ready()
        codes = codes_on_every_master(redis_cluster)
        for code in codes:
            assert await bus.create_room(code, b"s", b"e")
        assert {redis_cluster.node_of(key(c, "snap")) for c in codes} == {0, 1, 2}
        assert [await bus.load_snapshot(c) for c in codes] == [b"s"] * len(codes)
    finally:
        await bus.close()
