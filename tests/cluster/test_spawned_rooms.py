"""Rooms that rooms create are whole the moment anyone can see them, on every process.

Two `python -m app` processes share a real redis-server (and, where the test is
parametrized so, the session's real 3-master Redis Cluster). The room that spawns
(a tournament, a finished BANK room) is owned by process 0; every phone follows the
state it watches to the new room at once, on whichever process it is connected to,
and must be welcomed there in its own seat on the first try (tests/cluster/following.py).
"""

from __future__ import annotations

import asyncio
import signal
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest
import redis as sync_redis

from tests.client import Client, Table
from tests.cluster.conftest import ENV
from tests.cluster.dying_app import STEPS
from tests.cluster.following import (
    FOLLOW_SECONDS,
    follow,
    next_game,
    table_of,
    tournament_phone,
)
from tests.conftest import ServerProcess, start_server
from tests.games.tournament.support import (
    Seat,
    Tourney,
    assert_log_replays,
    assert_room_replays,
    expected_total,
    one_table_ended,
    play_game,
    welcome,
)
from tests.games.tournament.test_two_tables import sixteen_players
from tests.redis_server import RedisServer

BACKENDS = ["redis", "redis-cluster"]
NAMES = [f"P{n:02}" for n in range(1, 17)]
ROUNDS = 2
DYING = ("-m", "tests.cluster.dying_app")


@pytest.mark.parametrize("backend", BACKENDS)
async def test_sixteen_phones_open_their_tables_the_moment_the_tournament_names_them(  # type: ignore[no-untyped-def]
    make_cluster, backend: str
) -> None:
    cluster = make_cluster(2, backend=backend)
    servers = cluster.servers
    tourney = Tourney(servers[0].base_url, servers[1].ws_url, games=1, rounds=ROUNDS)
    for name in NAMES:
        tourney.join(name)
    organiser = await tourney.open()
    urls = {name: servers[n % 2].ws_url for n, name in enumerate(NAMES)}
    phones = {
        name: await tournament_phone(urls[name], tourney.code, tourney.tokens[name])
        for name in NAMES
    }
    followers = [
        asyncio.create_task(
            follow(phones[n], table_of(tourney.ids[n], 1), urls[n], tourney.tokens[n])
        )
        for n in NAMES
    ]
    seating = [[tourney.ids[n] for n in NAMES[:8]], [tourney.ids[n] for n in NAMES[8:]]]
    await organiser.ok(type="next", tables=seating)
    arrived = await asyncio.gather(*followers)

    tables = (await tourney.newest(lambda s: len(s["tables"]) == 2, "both tables"))["tables"]
    assert [t["players"] for t in tables] == seating
    for name, (code, hello) in zip(NAMES, arrived):
        pid = tourney.ids[name]
        table = next(t for t in tables if pid in t["players"])
        assert code == table["code"]
        assert hello["you"] == {"role": "player", "player_id": pid}, hello
        assert [p["id"] for p in hello["state"]["players"]] == table["players"]  # every seat
    for server in servers:  # any process reads them whole too
        for table in tables:
            room = httpx.get(f"{server.base_url}/api/rooms/{table['code']}").json()["state"]
            assert [p["id"] for p in room["players"]] == table["players"]
    for table in tables:  # no record of a table ever lacked a seat: its first one has them all
        log = httpx.get(f"{servers[1].base_url}/api/rooms/{table['code']}/log").json()["events"]
        assert [e["type"] for e in log] == ["create"]
        assert [s["player_id"] for s in log[0]["data"]["seats"]] == table["players"]

    # Each phone's first BANK there is its own (no `unknown_player`).
    banks = {tourney.ids[n]: 1 + n_index % 5 for n_index, n in enumerate(NAMES)}
    seats = []
    for number, table in enumerate(tables):
        banker = await Client.connect(
            servers[number].ws_url, table["code"], tourney.organiser_token
        )
        assert (await welcome(banker))["you"]["role"] == "banker"
        seat_phones: dict[str, Client] = {}
        for name in NAMES:
            pid = tourney.ids[name]
            if pid in table["players"]:
                seat_phones[pid] = await Client.connect(
                    urls[name], table["code"], tourney.tokens[name]
                )
                await welcome(seat_phones[pid])
        seats.append(Seat(banker, seat_phones, table["code"]))
    await asyncio.gather(*(play_game(seat, ROUNDS, banks) for seat in seats))
    await tourney.status("scoring")
    await organiser.ok(type="score")
    await tourney.status("reroll", 15)  # totals taken once both tables were locked
    for table in tables:
        room = httpx.get(f"{servers[0].base_url}/api/rooms/{table['code']}").json()["state"]
        scores = {p["id"]: p["score"] for p in room["players"]}
        assert scores == {pid: expected_total(ROUNDS, banks[pid]) for pid in table["players"]}
    for table in tables:
        assert_room_replays(servers[1].base_url, table["code"])


@pytest.mark.parametrize("backend", BACKENDS)
async def test_play_again_phones_and_a_tv_on_both_processes_follow_into_their_own_seats(  # type: ignore[no-untyped-def]
    make_cluster, backend: str
) -> None:
    cluster = make_cluster(2, backend=backend)
    first, second = cluster.servers
    table = Table(first.base_url, rounds=1)  # owned by process 0
    for name in ("Ann", "Bob", "Cy"):
        table.join(name)
    urls = {"Ann": second.ws_url, "Bob": first.ws_url, "Cy": second.ws_url}
    banker = await Client.connect(second.ws_url, table.code, table.banker_token)
    await welcome(banker)
    phones = {
        name: await Client.connect(urls[name], table.code, token)
        for name, (_, token) in table.players.items()
    }
    tv = await Client.connect(first.ws_url, table.code)
    for client in (*phones.values(), tv):
        await welcome(client)
    for command in ({"type": "start"}, {"type": "roll", "dice": [6, 4]}):
        await banker.ok(**command)
    for name in ("Ann", "Bob", "Cy"):  # everyone banked: the only round, and the game, ends
        await phones[name].ok(type="bank")
    followers = {
        name: asyncio.create_task(follow(phones[name], next_game, urls[name], token))
        for name, (_, token) in table.players.items()
    }
    watching = asyncio.create_task(follow(tv, next_game, first.ws_url, None))
    await banker.ok(type="play_again")

    seated = [pid for pid, _ in table.players.values()]
    new_codes = set()
    for name, task in followers.items():
        code, hello = await task
        new_codes.add(code)
        assert hello["you"] == {"role": "player", "player_id": table.players[name][0]}, hello
        assert [p["id"] for p in hello["state"]["players"]] == seated
    code, on_tv = await watching
    assert on_tv["you"]["role"] == "spectator"
    assert [p["id"] for p in on_tv["state"]["players"]] == seated
    assert new_codes == {code}
    assert on_tv["state"]["previous_game"] == table.code
    log = httpx.get(f"{second.base_url}/api/rooms/{code}/log").json()["events"]
    assert [e["type"] for e in log] == ["create"]


async def test_a_score_racing_a_table_s_undo_ends_consistent_fifty_times(make_cluster) -> None:  # type: ignore[no-untyped-def]
    """Either the lock wins (the undo is `game_over`, the totals scored are the table's), or
    the undo wins (the tournament plays on, and what the table then finishes with counts;
    a `score` sent with the undo that comes after the table's report of it is refused)."""
    cluster = make_cluster(2)
    first, second = cluster.servers
    outcomes = {"ack": 0, "game_over": 0}
    for attempt in range(50):
        tourney, ann, organiser, banker, table = await one_table_ended(
            first.base_url, second.ws_url
        )

        if attempt % 2:  # both at once: under load the undo mostly gets there first
            scored, undone = await asyncio.gather(
                organiser.command(type="score"), banker.command(type="undo")
            )
        else:  # the undo sent the moment `score` is acked, as its lock sets out
            scored = await organiser.command(type="score")
            undone = await banker.command(type="undo")
        if scored["type"] == "error":  # the undo and the table's report of it came first
            assert attempt % 2 and scored["code"] == "not_finished", scored
            assert undone["type"] == "ack", undone
        else:
            assert scored["type"] == "ack", scored
        if undone["type"] == "ack":
            outcomes["ack"] += 1
            reopened = await tourney.status("playing")
            assert reopened["results"] == [] and reopened["tables"][0]["status"] == "playing"
            await banker.ok(type="roll", dice=[6, 5])
            await banker.ok(type="bank", player_id=ann)  # Ann 11 now
            await tourney.status("scoring")
            await organiser.ok(type="score")
            final, total = await tourney.status("finished", 15), 11
        else:
            assert undone["code"] == "game_over", undone
            outcomes["game_over"] += 1
            final, total = await tourney.status("finished", 15), 10
        assert final["results"][0]["totals"] == {ann: total}
        room = httpx.get(f"{first.base_url}/api/rooms/{table['code']}").json()["state"]
        assert [p["score"] for p in room["players"]] == [total]
        kinds = [
            e["type"]
            for e in httpx.get(f"{first.base_url}/api/rooms/{table['code']}/log").json()["events"]
        ]
        assert kinds.count("lock") == 1, kinds
        assert_log_replays(_tournament_rules(), tourney.log(), tourney.state())
        await organiser.close()
        await banker.close()
    print("score vs undo:", outcomes)  # which won varies with the machine's load
    assert sum(outcomes.values()) == 50


def _tournament_rules() -> Any:
    from app.games.tournament.rules import TournamentRules

    return TournamentRules()


@pytest.mark.parametrize("step", STEPS)
async def test_a_kill_of_the_source_s_owner_at_any_step_leaves_each_table_once_and_whole(
    tmp_path: Path, step: str
) -> None:
    """The tournament's owner (process 0) dies by SIGKILL at `step` of a table's
    `create_room` effect; process 1 takes the tournament over and carries the effects
    out again: one room per table, each seat once, each table named once, and every
    phone (on process 1) still follows at once into its seat."""
    redis = RedisServer(tmp_path)
    env = {**ENV, "REDIS_URL": redis.url}
    servers: list[ServerProcess] = []
    try:
        with ThreadPoolExecutor(2) as pool:  # both start at once
            dying = {**env, "BANKIT_TEST_DIE_AT": step}
            starting = [
                pool.submit(start_server, tmp_path, dying, None, DYING),
                pool.submit(start_server, tmp_path, env),
            ]
            servers += [f.result() for f in starting if f.exception() is None]
        assert len(servers) == 2, [f.exception() for f in starting]
        doomed, survivor = servers
        tourney = Tourney(doomed.base_url, survivor.ws_url, games=1, rounds=1)
        names = ["Ann", "Bob", "Cy", "Dee"]
        for name in names:
            tourney.join(name)
        organiser = await tourney.open()
        phones = {
            n: await tournament_phone(survivor.ws_url, tourney.code, tourney.tokens[n])
            for n in names
        }
        followers = [
            asyncio.create_task(
                follow(phones[n], table_of(tourney.ids[n], 1), survivor.ws_url, tourney.tokens[n])
            )
            for n in names
        ]
        seating = [[tourney.ids[n] for n in names[:2]], [tourney.ids[n] for n in names[2:]]]
        answer = await organiser.command(timeout=FOLLOW_SECONDS, type="next", tables=seating)
        assert answer["type"] == "ack", answer
        assert doomed.process.wait(FOLLOW_SECONDS) == -signal.SIGKILL
        tourney.base_url = survivor.base_url
        arrived = await asyncio.gather(*followers)

        final = await tourney.newest(lambda s: len(s["tables"]) == 2, "tables", FOLLOW_SECONDS)
        tables = final["tables"]
        for name, (code, hello) in zip(names, arrived):
            assert hello["you"] == {"role": "player", "player_id": tourney.ids[name]}, hello
            table = next(t for t in tables if t["code"] == code)
            assert [p["id"] for p in hello["state"]["players"]] == table["players"]
        made = rooms_made_by(redis, tourney.code)
        assert sorted(made) == sorted(t["code"] for t in tables)  # one room per table
        for table in tables:
            log = httpx.get(f"{survivor.base_url}/api/rooms/{table['code']}/log").json()["events"]
            assert [e["type"] for e in log] == ["create"]  # each seat once, in the create
            assert [s["player_id"] for s in log[0]["data"]["seats"]] == table["players"]
        kinds = [e["type"] for e in tourney.log()]
        assert (kinds.count("next"), kinds.count("table_code")) == (1, 2), kinds
        assert_log_replays(_tournament_rules(), tourney.log(), tourney.state())
    finally:
        for server in servers:
            server.kill()
        redis.stop()


def rooms_made_by(redis: RedisServer, source: str) -> list[str]:
    """The codes of the rooms whose stored record says an effect of `source` made them."""
    client = sync_redis.Redis.from_url(redis.url)
    try:
        codes = []
        for key in client.scan_iter("bankit:*:snap"):
            record = orjson.loads(client.get(key) or b"{}")
            if str(record.get("origin", "")).startswith(f"{source}."):
                codes.append(str(record["code"]))
        return codes
    finally:
        client.close()


async def test_the_sixteen_player_tournament_plays_the_same_on_two_processes(  # type: ignore[no-untyped-def]
    make_cluster,
) -> None:
    """tests/games/tournament/test_two_tables.py, its HTTP on the process that owns the
    tournament (and so its tables) and every socket on the other one."""
    first, second = make_cluster(2).servers
    await sixteen_players(first.base_url, second.ws_url)
