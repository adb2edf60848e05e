"""The secret seed of a room's fair dice survives a failover: two processes share Redis,
the owner dies mid-game, the other takes the room over, and when the game ends the seed
it reveals is the one committed at create; every roll checks out (docs/fair-dice.md)."""

from __future__ import annotations

from typing import Any

from tests.client import Client
from tests.cluster.conftest import poll, verify_chain
from tests.fair import assert_dice_check_out, draws_in, virtual_game_rolled


async def test_the_seed_survives_the_owner_dying_mid_game(make_cluster: Any) -> None:
    cluster = make_cluster(2)
    owner, second = cluster.servers
    table, commit = await virtual_game_rolled(owner, 3)
    owner.kill()

    table.base_url = second.base_url
    banker = await Client.connect(second.ws_url, table.code, table.banker_token)
    for _ in range(2000):
        answer = await banker.command(type="roll", timeout=10)
        if answer["type"] == "error":
            assert answer["code"] in ("unavailable", "game_over"), answer
        if answer["type"] == "error" and answer["code"] == "game_over":
            break
    final = poll(lambda: (s := table.state())["status"] == "finished" and s, 10, "the end")
    [shown] = final["fair"]["revealed"]
    assert shown["commit"] == commit
    events = table.log()
    verify_chain(events)
    assert assert_dice_check_out(events) == draws_in(events) > 3
