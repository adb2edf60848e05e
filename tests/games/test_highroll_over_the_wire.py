"""The toy game, played over real WebSockets on a real server that loads it by setting.

Adding it touched only tests/games/highroll.py and the `BANKIT_GAMES` setting: the
room, the bus and the endpoints are the ones BANK uses.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
import pytest

from app.rooms.eventlog import verify
from tests.client import Client
from tests.conftest import ServerProcess

GAMES = "app.games.bank,tests.games.highroll"


@pytest.fixture
def highroll_server(fresh_server: Callable[..., ServerProcess]) -> ServerProcess:
    return fresh_server(BANKIT_GAMES=GAMES)


def post(server: ServerProcess, path: str, body: dict[str, Any]) -> httpx.Response:
    return httpx.post(f"{server.base_url}{path}", json=body)


async def test_a_game_added_by_setting_is_played_over_websockets(
    highroll_server: ServerProcess,
) -> None:
    server = highroll_server
    made = post(server, "/api/rooms", {"game": "highroll"})
    assert made.status_code == 201, made.text
    code, banker_token = made.json()["code"], made.json()["banker_token"]
    assert made.json()["state"]["game"] == "highroll"
    seats = {}
    for name in ("Ann", "Bob"):
        joined = post(server, f"/api/rooms/{code}/players", {"name": name}).json()
        seats[name] = (joined["player_id"], joined["token"])
    banker = await Client.connect(server.ws_url, code, banker_token)
    ann = await Client.connect(server.ws_url, code, seats["Ann"][1])
    bob = await Client.connect(server.ws_url, code, seats["Bob"][1])
    spectator = await Client.connect(server.ws_url, code)
    welcome = await ann.wait_for(lambda m: m["type"] == "welcome")
    assert welcome["you"] == {"role": "player", "player_id": seats["Ann"][0]}

    await ann.refused("not_started", type="roll")
    await spectator.refused("not_allowed", type="start")
    await ann.refused("bad_message", type="shuffle")
    await banker.refused("nothing_to_undo", type="undo")
    await banker.ok(type="start")
    first = await ann.ok(type="roll")
    await ann.refused("already_rolled", type="roll")
    undo = await banker.ok(type="undo")  # the room's generic undo, by the game's policy
    state = await spectator.state_at_least(undo)
    assert [p["roll"] for p in state["players"]] == [None, None]
    await ann.ok(type="roll")
    last = await bob.ok(type="roll")
    final = await spectator.state_at_least(last)
    assert final["status"] == "finished"
    totals = {p["id"]: sum(p["roll"]) for p in final["players"]}
    assert final["winners"] == [pid for pid, t in totals.items() if t == max(totals.values())]
    assert final["players"][0]["connected"] is True
    events = httpx.get(f"{server.base_url}/api/rooms/{code}/log").json()["events"]
    assert verify(events)
    assert [e["type"] for e in events].count("roll") == 3 and first > 1


async def test_a_rematch_creates_a_room_with_the_same_players_seated(
    highroll_server: ServerProcess,
) -> None:
    server = highroll_server
    made = post(server, "/api/rooms", {"game": "highroll"}).json()
    code, banker_token = made["code"], made["banker_token"]
    joined = post(server, f"/api/rooms/{code}/players", {"name": "Ann"}).json()
    banker = await Client.connect(server.ws_url, code, banker_token)
    ann = await Client.connect(server.ws_url, code, joined["token"])
    await banker.refused("not_finished", type="rematch")
    await banker.ok(type="start")
    await ann.ok(type="roll")
    rematch = await banker.ok(type="rematch")
    told = await ann.wait_for(
        lambda m: m["type"] == "state" and m["state"]["next_code"] is not None
    )
    new_code = told["state"]["next_code"]
    assert told["state"]["seq"] == rematch + 1 and new_code != code

    # The same tokens open the new room: the banker as banker, Ann in her seat.
    again = await Client.connect(server.ws_url, new_code, joined["token"])
    welcome = await again.wait_for(lambda m: m["type"] == "welcome")
    assert welcome["you"] == {"role": "player", "player_id": joined["player_id"]}
    assert [p["name"] for p in welcome["state"]["players"]] == ["Ann"]
    new_banker = await Client.connect(server.ws_url, new_code, banker_token)
    assert (await new_banker.wait_for(lambda m: m["type"] == "welcome"))["you"]["role"] == "banker"
    await new_banker.ok(type="start")
    await again.ok(type="roll")
    for room in (code, new_code):
        events = httpx.get(f"{server.base_url}/api/rooms/{room}/log").json()["events"]
        assert verify(events)
    old_events = httpx.get(f"{server.base_url}/api/rooms/{code}/log").json()["events"]
    assert [e["type"] for e in old_events].count("spawned") == 1
