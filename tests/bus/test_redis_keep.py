"""A group outlives Redis's room TTL on every process (app/bus/redis/wire.py, `keep`).

Two registries, each with its own RedisBus (two processes of one deployment), on a real
redis-server and on the session's real Redis Cluster. The first creates a group, a
member card and a BANK room, then dies without releasing them; the second takes each
over when a command comes and commits its event. A group's and a card's keys expire
`BANKIT_GROUP_IDLE_SECONDS` after that event (their game's `keep_seconds`), a BANK
room's `BANKIT_ROOM_TTL_SECONDS` after it, as they did after their creation.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import redis

from app.bus.redis.bus import ROOM_PARTS, RedisBus, key
from app.config import Settings
from app.games.seam import PLAYER, SYSTEM
from app.main import make_bus
from app.rooms.envelope import CommandEnvelope
from app.rooms.registry import RoomRegistry
from tests.bus.conftest import until
from tests.redis_cluster import RedisCluster
from tests.redis_server import RedisServer
from tests.rooms.test_registry_snapshot import running

HOST = "h" * 64
SLACK_MS = 60_000  # the test's own time, with room to spare on a loaded machine


def ttls(client: Any, code: str) -> dict[str, int]:
    """The PTTL of each of the room's keys that exists (the lease aside: it is the
    owner's, and short by design)."""
    parts = (*ROOM_PARTS, "epoch")
    found = {part: int(client.pttl(key(code, part))) for part in parts if part != "lease"}
    return {part: ttl for part, ttl in found.items() if ttl != -2}


async def lapsed(bus: RedisBus, codes: list[str]) -> bool:
    return len(await bus.unowned(codes)) == len(codes)


async def logged(registry: RoomRegistry, code: str) -> bool:
    """The room's event after its creation is committed (in its log)."""
    return len(await registry.bus.load_log(code)) >= 2


@pytest.mark.parametrize("backend", ["redis", "redis-cluster"])
async def test_a_group_and_its_cards_are_kept_their_time_after_a_takeover(
    backend: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    if backend == "redis":
        server: RedisServer = request.getfixturevalue("redis_server")
        url, client = server.url, redis.Redis.from_url(server.url)
    else:
        cluster: RedisCluster = request.getfixturevalue("redis_cluster")
        url = cluster.url
        client = redis.RedisCluster(host="127.0.0.1", port=cluster.nodes[0].port)
    settings = Settings(
        data_dir=tmp_path, redis_url=url, lease_seconds=0.5, redis_replica_wait_seconds=0.1
    )
    group_ms, room_ms = settings.group_idle_seconds * 1000, settings.room_ttl_seconds * 1000
    assert group_ms > room_ms + SLACK_MS, "the test tells the two apart"

    def kept_for_a_group(code: str) -> None:
        found = ttls(client, code)
        assert {"snap", "log", "cursor", "epoch"} <= found.keys(), found
        assert all(ttl >= group_ms - SLACK_MS for ttl in found.values()), found

    def kept_for_a_room(code: str) -> None:
        found = ttls(client, code)
        assert {"snap", "log", "cursor", "epoch"} <= found.keys(), found
        assert all(room_ms - SLACK_MS <= ttl <= room_ms for ttl in found.values()), found

    async with running(make_bus(settings), settings) as first:
        games = first.games
        group = (await first.create(games["group"], {"name": "Bunco club"}, [HOST]))["code"]
        options = games["member"].create_options({"name": "Ann", "group": group})
        card = (await first.create(games["member"], options, []))["code"]
        bank = (await first.create(games["bank"], {"rounds": 3}, [HOST]))["code"]
        for code in (group, card):
            kept_for_a_group(code)
        kept_for_a_room(bank)
        for actor in list(first.actors.values()):  # it dies: its leases lapse by themselves
            await actor.stop(release=False)
        assert not first.actors
        bus = first.bus
        assert isinstance(bus, RedisBus)
        await until(lambda: lapsed(bus, [group, card, bank]), what="the leases to lapse")

    async with running(make_bus(settings), settings) as second:
        node = second.bus.node_id
        commands = [  # as the routes and effects send them: a member joins, a game touches
            (group, "group", PLAYER, card, {"type": "join", "player_id": card}),
            (card, "member", SYSTEM, None, {"type": "touch"}),
            (bank, "bank", SYSTEM, None, {"type": "join", "player_id": "p1", "name": "Bob"}),
        ]
        for code, game, role, pid, data in commands:
            text = second.games[game].server_command(data)
            command = CommandEnvelope(role, pid, None, text, node, th=HOST, server=True)
            await second.submit(code, command)
        for code in (group, card, bank):
            await until(lambda c=code: logged(second, c), what=f"{code}'s event committed")
            assert code in second.actors, "the second process took the room over"
        for code in (group, card):
            kept_for_a_group(code)
        kept_for_a_room(bank)
    client.close()
