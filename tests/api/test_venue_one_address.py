"""A venue whose phones all share one NAT address never meets a limit (issue 19).

With every default of the per-address shares (docs/security.md), over real sockets
from one loopback address that is not the host's own (127.0.0.5, 127.0.0.6): a
24-player Bunco night plays to the end, and a 10-table bar runs ten BANK games at once,
each with its TV watching.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import httpx

from tests.client import Client, Message
from tests.conftest import ServerProcess
from tests.games.bunco.bunco_night import BuncoNight, dice

BAR = "127.0.0.6"
TABLES, PLAYERS_PER_TABLE = 10, 6


async def play_to_the_end(
    banker: Client, players: Mapping[str, Client], spectator: Client
) -> Message:
    """Every round: each low table's roller scores a point, then the High table's rolls
    a Bunco (its bell); the banker rings the next round, until the night is over."""
    last = await banker.ok(type="start")
    state = await spectator.state_at_least(last)
    for _ in range(state["sets"] * 6):  # six rounds a set
        target, tables = state["round"], state["tables"]
        for table in tables[1:]:
            last = await players[table["roller"]].ok(type="roll", dice=dice("1", target))
        last = await players[tables[0]["roller"]].ok(type="roll", dice=dice("B", target))
        state = await spectator.state_at_least(last)
        if state["status"] == "finished":
            break
        assert state["phase"] == "waiting", state
        state = await spectator.state_at_least(await banker.ok(type="ring"))
    return state


async def test_a_24_player_bunco_night_behind_one_address_plays_to_the_end(
    fresh_server: Callable[..., ServerProcess],
) -> None:
    proc = fresh_server()
    night = BuncoNight(proc.base_url, source="127.0.0.5", sets=1, roll_entry="roller")
    for n in range(24):
        night.join(f"Player {n + 1}")
    banker, players, spectator = await night.connect([proc.ws_url])
    tvs = [await Client.connect(proc.ws_url, night.code, source="127.0.0.5") for _ in range(3)]

    final = await play_to_the_end(banker, players, spectator)

    assert final["status"] == "finished" and len(final["rounds_log"]) == 6
    assert len(final["players"]) == 24 and final["winners"]
    for client in (banker, spectator, *players.values(), *tvs):
        assert (await client.state_at_least(final["seq"]))["status"] == "finished"
        assert client.close_code is None, "no socket of the venue was closed"
    scoresheet = night.get("/scoresheet.csv")
    assert scoresheet.status_code == 200


async def test_a_ten_table_bar_behind_one_address_never_meets_a_limit(
    fresh_server: Callable[..., ServerProcess],
) -> None:
    proc = fresh_server()
    http = httpx.Client(base_url=proc.base_url, transport=httpx.HTTPTransport(local_address=BAR))
    sockets: list[Client] = []
    rooms = []
    for table in range(TABLES):
        made = http.post("/api/rooms", json={"game": "bank", "rounds": 3})
        assert made.status_code == 201, made.text
        code, banker_token = made.json()["code"], made.json()["banker_token"]
        assert http.get(f"/api/rooms/{code}/qr.svg").status_code == 200
        tokens = []
        for seat in range(PLAYERS_PER_TABLE):
            joined = http.post(f"/api/rooms/{code}/players", json={"name": f"T{table} P{seat}"})
            assert joined.status_code == 201, joined.text
            tokens.append(joined.json()["token"])
        banker = await Client.connect(proc.ws_url, code, banker_token, source=BAR)
        phones = [await Client.connect(proc.ws_url, code, t, source=BAR) for t in tokens]
        tvs = [await Client.connect(proc.ws_url, code, source=BAR) for _ in range(2)]
        sockets += [banker, *phones, *tvs]
        rooms.append((code, banker, tvs[0]))
    for client in sockets:
        await client.wait_for(lambda m: m["type"] == "welcome")

    for code, banker, tv in rooms:
        await banker.ok(type="start")
        seq = await banker.ok(type="roll", dice=[3, 4])
        assert (await tv.state_at_least(seq))["roll_count"] == 1
        assert http.get(f"/api/rooms/{code}").status_code == 200
        assert http.get(f"/api/rooms/{code}/log").status_code == 200
    assert all(client.close_code is None for client in sockets)
    http.close()
