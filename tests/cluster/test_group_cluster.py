"""A group on two processes sharing the session's real Redis Cluster: its members'
cards, the group and its game live on different processes and hash slots; the game's
result reaches the group once, every process serves the same season, and a member who
leaves (asked of the process that does not own their card) is deleted everywhere."""

from __future__ import annotations

from typing import Any

import httpx

from tests.cluster.conftest import verify_chain
from tests.games.group.season import Group, play_bank


async def test_a_group_plays_across_two_processes_on_a_redis_cluster(make_cluster: Any) -> None:
    first, second = make_cluster(2, backend="redis-cluster").servers
    group = Group(first.base_url, first.ws_url)
    group.move_to(second.base_url)  # the cards are made, and the game started, on the second
    ann, bob = group.join("Ann"), group.join("Bob")
    game = await group.start("bank", rounds=1)
    ids = {"Ann": group.seat("Ann", game), "Bob": group.seat("Bob", game)}
    group.ws_url = first.ws_url  # the host plays from the first
    await play_bank(group, game, ids)
    line = await group.recorded(game)
    assert [(row["id"], row["score"]) for row in line["result"]] == [(ann, 10), (bob, 30)]

    events = group.log()
    verify_chain(events)
    assert sum(1 for e in events if e["data"].get("result")) == 1
    answers = [httpx.get(f"{s.base_url}/api/groups/{group.code}").json() for s in (first, second)]
    assert answers[0] == answers[1] and answers[0]["names"] == {ann: "Ann", bob: "Bob"}

    group.move_to(first.base_url)
    gone = group.http.delete(f"/api/groups/{group.code}/members/me", headers=group.token_of("Bob"))
    assert gone.status_code == 204, gone.text
    for server in (first, second):
        served = httpx.get(f"{server.base_url}/api/groups/{group.code}").json()
        assert served["names"] == {ann: "Ann"} and bob not in str(served["state"])
    group.http.close()
