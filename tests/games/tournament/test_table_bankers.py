"""A second table's scorekeeper gets a banker link of its own, without the organiser's phone.

`POST /api/tournaments/{code}/tables/{table}/banker` with the organiser's token as a
Bearer header returns a new banker token for that table room of the game in play; the
table room binds it through the server command `add_banker` (its log: a `banker` event).
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from app.games.seam import RuleError, Sender
from tests.bank_support import BANK, decide
from tests.client import Client
from tests.conftest import ServerProcess
from tests.games.tournament.support import (
    Tourney,
    assert_room_replays,
    connect_tournament,
    welcome,
)


def ask(tourney: Tourney, table: int | str, authorization: str | None) -> httpx.Response:
    headers = {"Authorization": authorization} if authorization is not None else {}
    path = f"/api/tournaments/{tourney.code}/tables/{table}/banker"
    return httpx.post(f"{tourney.base_url}{path}", headers=headers)


def refused(response: httpx.Response, status: int, code: str) -> None:
    assert response.status_code == status, response.text
    assert response.json()["error"]["code"] == code, response.text


async def test_a_table_banker_link_opens_only_that_table_as_its_banker(
    server: ServerProcess,
) -> None:
    tourney = Tourney(server.base_url, server.ws_url, games=1, rounds=1)
    for name in ("Ann", "Bob", "Cy", "Dee"):
        tourney.join(name)
    await tourney.open()
    bearer = f"Bearer {tourney.organiser_token}"
    refused(ask(tourney, 1, bearer), 404, "unknown_table")  # the lobby has no tables
    one, two = await tourney.next([["Ann", "Bob"], ["Cy", "Dee"]])

    made = ask(tourney, 2, bearer)
    assert made.status_code == 201, made.text
    body: dict[str, Any] = made.json()
    assert (body["table"], body["code"]) == (2, two["code"])
    scorekeeper = await Client.connect(server.ws_url, two["code"], body["banker_token"])
    assert (await welcome(scorekeeper))["you"]["role"] == "banker"
    await scorekeeper.ok(type="start")
    await scorekeeper.ok(type="roll", dice=[3, 4])
    await scorekeeper.ok(type="bank", player_id=tourney.ids["Cy"])
    organiser_there = await Client.connect(server.ws_url, two["code"], tourney.organiser_token)
    assert (await welcome(organiser_there))["you"]["role"] == "banker"  # still the banker too
    kinds = [
        e["type"]
        for e in httpx.get(f"{server.base_url}/api/rooms/{two['code']}/log").json()["events"]
    ]
    assert kinds[:2] == ["create", "hand_over"]  # the create event seats the table
    assert_room_replays(server.base_url, two["code"])

    for code in (one["code"],):  # no other table's, and not the tournament's
        elsewhere = await Client.connect(server.ws_url, code, body["banker_token"])
        assert await elsewhere.wait_closed() == 4401
    in_tournament = await connect_tournament(server.ws_url, tourney.code, body["banker_token"])
    assert await in_tournament.wait_closed() == 4401

    before = httpx.get(f"{server.base_url}/api/rooms/{one['code']}/log").json()
    refused(ask(tourney, 1, None), 401, "bad_token")
    refused(ask(tourney, 1, tourney.organiser_token), 401, "bad_token")  # no scheme
    refused(ask(tourney, 1, "Bearer"), 401, "bad_token")
    refused(ask(tourney, 1, "Bearer nonsense"), 401, "bad_token")
    refused(ask(tourney, 1, f"Basic {tourney.organiser_token}"), 401, "bad_token")
    refused(ask(tourney, 1, f"Bearer {tourney.tokens['Ann']}"), 403, "not_allowed")
    refused(ask(tourney, 1, f"Bearer {body['banker_token']}"), 401, "bad_token")
    refused(ask(tourney, 3, bearer), 404, "unknown_table")
    refused(ask(tourney, 0, bearer), 404, "unknown_table")
    refused(ask(tourney, "one", bearer), 422, "bad_request")
    assert httpx.get(f"{server.base_url}/api/rooms/{one['code']}/log").json() == before
    unknown = httpx.post(
        f"{server.base_url}/api/tournaments/ZZZZ/tables/1/banker", headers={"Authorization": bearer}
    )
    refused(unknown, 404, "unknown_tournament")
    await organiser_there.refused("bad_message", type="add_banker")  # the server's own command


def test_only_the_server_adds_a_banker_and_only_at_a_tournament_table() -> None:
    plain = BANK.rules.create({"game": "bank", "rounds": 1})
    with pytest.raises(RuleError) as refused_here:
        decide(BANK.rules, plain, Sender("system"), {"type": "add_banker"})
    assert refused_here.value.code == "not_allowed"
    table = BANK.rules.create(
        {"game": "bank", "rounds": 1, "parent": "T4QX", "tournament": {"game": 1, "table": 2}}
    )
    with pytest.raises(RuleError) as from_banker:
        decide(BANK.rules, table, Sender("banker"), {"type": "add_banker"})
    assert from_banker.value.code == "not_allowed"
    event = decide(BANK.rules, table, Sender("system"), {"type": "add_banker"})
    assert event.type == "banker"
    assert BANK.rules.evolve(table, event, 2) == table
    assert BANK.rules.seating(event).seated == ("banker",)
