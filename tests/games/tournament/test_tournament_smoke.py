"""A tournament's tables are BANK rooms made by its `next`: seats, tokens, reports, lock."""

from __future__ import annotations

from typing import Any

import httpx

from app.rooms.eventlog import verify
from tests.client import Client
from tests.conftest import ServerProcess


def post(server: ServerProcess, path: str, body: dict[str, Any]) -> dict[str, Any]:
    response = httpx.post(f"{server.base_url}{path}", json=body)
    assert response.status_code == 201, response.text
    return dict(response.json())


async def connect(server: ServerProcess, code: str, token: str | None = None) -> Client:
    url = f"{server.ws_url}/ws/tournaments/{code}" + (f"?token={token}" if token else "")
    from websockets.asyncio.client import connect as ws_connect

    return Client(await ws_connect(url, max_size=None, open_timeout=5))


async def test_a_game_of_a_tournament_is_played_in_its_table_room(server: ServerProcess) -> None:
    made = post(server, "/api/tournaments", {"games": 1, "rounds": 1, "roll_entry": "banker"})
    code, organiser_token = made["code"], made["organiser_token"]
    players = {
        name: post(server, f"/api/tournaments/{code}/players", {"name": name})
        for name in ("Ann", "Bob")
    }
    organiser = await connect(server, code, organiser_token)
    welcome = await organiser.wait_for(lambda m: m["type"] == "welcome")
    assert welcome["you"]["role"] == "organiser"
    await organiser.ok(type="next")
    state = (await organiser.wait_for(lambda m: m["type"] == "state" and m["state"]["tables"]))[
        "state"
    ]
    table = state["tables"][0]["code"]

    banker = await Client.connect(server.ws_url, table, organiser_token)
    ann = await Client.connect(server.ws_url, table, players["Ann"]["token"])
    seated = await ann.wait_for(lambda m: m["type"] == "welcome")
    assert seated["you"] == {"role": "player", "player_id": players["Ann"]["player_id"]}
    assert seated["state"]["tournament"] == {"code": code, "game": 1, "table": 1}
    assert [p["name"] for p in seated["state"]["players"]] == ["Ann", "Bob"]
    assert (await banker.wait_for(lambda m: m["type"] == "welcome"))["you"]["role"] == "banker"
    assert (
        httpx.post(f"{server.base_url}/api/rooms/{table}/players", json={"name": "Cy"}).status_code
        == 409
    )
    await banker.refused("not_allowed", type="kick", player_id=players["Bob"]["player_id"])

    await banker.ok(type="start")
    await banker.ok(type="roll", dice=[3, 4])
    await ann.ok(type="bank")
    await banker.ok(type="bank", player_id=players["Bob"]["player_id"])  # all banked: over
    scoring = await organiser.wait_for(
        lambda m: m["type"] == "state" and m["state"]["status"] == "scoring", timeout=10
    )
    assert scoring["state"]["tables"][0]["status"] == "finished"
    await organiser.ok(type="score")
    done = await organiser.wait_for(
        lambda m: m["type"] == "state" and m["state"]["status"] in ("finished", "reroll")
    )
    assert done["state"]["status"] == "reroll"  # Ann and Bob both banked 70: a tie for 1st
    for _ in range(50):
        answer = await banker.command(type="undo")
        if answer.get("code") == "game_over":
            break
    assert answer["code"] == "game_over"
    for room in (code, table):
        kind = "tournaments" if room == code else "rooms"
        events = httpx.get(f"{server.base_url}/api/{kind}/{room}/log").json()["events"]
        assert verify(events)
