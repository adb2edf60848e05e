"""Hand-over on one process (docs/protocol.md, "Hand-over"): the banker's role and a
player's seat move to another phone, and the table takes the role back by a majority."""

from __future__ import annotations

import httpx

from app.rooms.eventlog import verify
from tests import handover_support as scenario
from tests.client import Table
from tests.conftest import ServerProcess
from tests.games.tournament.support import Tourney, connect_tournament, welcome


async def test_banker_hands_the_role_to_another_phone(server: ServerProcess) -> None:
    await scenario.banker_hands_over(server, server)


async def test_a_seat_moves_to_another_phone(server: ServerProcess) -> None:
    await scenario.seat_moves(server, server)


async def test_the_table_takes_the_role_back_by_a_majority(server: ServerProcess) -> None:
    await scenario.table_takes_back(server, server)


async def test_the_banker_offers_the_role_to_a_player(server: ServerProcess) -> None:
    await scenario.banker_offers(server, server)


async def test_the_organiser_hands_a_tournament_to_another_phone(server: ServerProcess) -> None:
    tourney = Tourney(server.base_url, server.ws_url, games=1, rounds=1)
    tourney.join("Ann")
    old = await tourney.open()
    moved = scenario.post(
        server, f"/api/tournaments/{tourney.code}/handover", tourney.organiser_token
    )
    assert moved.status_code == 201, moved.text
    assert moved.json()["principal"] == "organiser"
    assert await old.wait_closed(10) == scenario.CLOSE_BAD_TOKEN
    again = scenario.post(
        server, f"/api/tournaments/{tourney.code}/handover", tourney.organiser_token
    )
    assert again.status_code == 401

    new = await connect_tournament(server.ws_url, tourney.code, moved.json()["token"])
    assert (await welcome(new))["you"]["role"] == "organiser"
    qr = httpx.post(
        f"{server.base_url}/api/tournaments/{tourney.code}/seat-qr.svg",
        json={"token": moved.json()["token"]},
    )
    assert qr.status_code == 200 and qr.headers["cache-control"] == "no-store"
    assert qr.headers["content-type"] == "image/svg+xml"
    events = tourney.log()
    assert verify(events) and events[-1]["type"] == "hand_over"
    assert events[-1]["data"] == {"principal": "organiser"} and events[-1]["by"] == "organiser"


def test_bad_requests_change_nothing(server: ServerProcess) -> None:
    table = Table(server.base_url)
    table.join("Ann")
    seq = table.state()["seq"]
    path = scenario.handover_path(table.code)
    no_header = httpx.post(f"{server.base_url}{path}", json={})
    assert no_header.status_code == 401 and no_header.json()["error"]["code"] == "bad_token"
    shape = scenario.post(server, path, table.banker_token, {"player_id": 7})
    assert shape.status_code == 422
    vote = scenario.handover_path(table.code, "host/vote")
    assert scenario.post(server, vote, table.banker_token, {"player_id": None}).status_code == 403
    unknown = scenario.post(server, "/api/rooms/ZZZZ/handover", table.banker_token)
    assert unknown.status_code == 404 and unknown.json()["error"]["code"] == "unknown_room"
    assert table.state()["seq"] == seq and len(table.log()) == seq


async def test_a_tournament_s_hand_over_reaches_its_tables(server: ServerProcess) -> None:
    await scenario.tournament_tokens_follow(server, server)
