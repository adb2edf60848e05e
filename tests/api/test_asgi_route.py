"""The room socket as an ASGI route (app/api/ws.py), for servers other than `python -m app`.

`python -m app` answers room sockets below ASGI (app/api/socket_protocol.py); every
other test runs that path. Here plain uvicorn serves `create_app()` with its own
WebSocket protocol, so the same session runs over Starlette's WebSocket.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.client import Client, Table
from tests.conftest import ServerProcess, start_server

UVICORN = ("-m", "uvicorn", "--factory", "app.main:create_app", "--ws", "websockets-sansio")


@pytest.fixture
def asgi_server(tmp_path: Path) -> Iterator[ServerProcess]:
    server = start_server(tmp_path, command=UVICORN)
    yield server
    server.kill()


async def test_a_round_plays_over_the_asgi_route(asgi_server: ServerProcess) -> None:
    table = Table(asgi_server.base_url)
    ann_id = table.join("Ann")
    table.join("Bob")
    banker = await Client.connect(asgi_server.ws_url, table.code, table.banker_token)
    ann = await Client.connect(asgi_server.ws_url, table.code, table.players["Ann"][1])
    welcome = await ann.wait_for(lambda m: True)
    assert welcome["type"] == "welcome"
    assert welcome["you"] == {"role": "player", "player_id": ann_id}

    await banker.ok(type="start")
    await banker.ok(type="roll", dice=[6, 6])  # a first roll counts its face value: 12
    banked = await ann.ok(type="bank", id="ann-1")
    assert await ann.ok(type="bank", id="ann-1") == banked, "a retried id: the first seq"
    state = await banker.state_at_least(banked)
    assert {p["name"]: p["score"] for p in state["players"]} == {"Ann": 12, "Bob": 0}

    refused = await ann.refused("already_banked", type="bank")
    assert refused["type"] == "error"
    await ann.send("not json")
    bad = await ann.wait_for(lambda m: m.get("code") == "bad_message")
    assert bad["id"] is None
    await ann.send({"type": "ping", "id": "p1"})
    assert (await ann.wait_for(lambda m: m.get("type") == "pong"))["id"] == "p1"
    assert table.state()["seq"] == state["seq"], "what was refused changed nothing"


async def test_the_asgi_route_closes_unknown_rooms_and_tokens(asgi_server: ServerProcess) -> None:
    table = Table(asgi_server.base_url)
    nowhere = await Client.connect(asgi_server.ws_url, "ZZZZ")
    assert await nowhere.wait_closed() == 4404
    stranger = await Client.connect(asgi_server.ws_url, table.code, "not-a-token")
    assert await stranger.wait_closed() == 4401
    watcher = await Client.connect(asgi_server.ws_url, table.code)
    assert (await watcher.wait_for(lambda m: True))["you"]["role"] == "spectator"
