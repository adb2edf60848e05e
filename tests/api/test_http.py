"""The HTTP half of the protocol against a real server process."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from app.config import Settings
from app.main import create_app
from app.rooms.eventlog import verify
from tests.client import Table
from tests.conftest import ServerProcess


def post(server: ServerProcess, path: str, body: Any) -> httpx.Response:
    return httpx.post(f"{server.base_url}{path}", json=body)


def assert_error(response: httpx.Response, status: int, code: str) -> None:
    assert response.status_code == status, response.text
    error = response.json()["error"]
    assert error["code"] == code
    assert isinstance(error["message"], str) and error["message"]


def test_create_room_returns_code_token_and_lobby_state(server: ServerProcess) -> None:
    response = post(server, "/api/rooms", {"game": "bank", "rounds": 15, "roll_entry": "virtual"})
    assert response.status_code == 201
    body = response.json()
    assert len(body["code"]) == 4 and body["code"].isupper()
    assert len(body["banker_token"]) >= 22  # at least 128 bits, URL-safe
    state = body["state"]
    assert state["code"] == body["code"]
    assert (state["status"], state["rounds"], state["roll_entry"]) == ("lobby", 15, "virtual")
    assert (state["seq"], state["round"], state["turn"], state["players"]) == (1, 0, None, [])
    assert body["banker_token"] not in response.text.replace(f'"{body["banker_token"]}"', "", 1)


def test_create_room_defaults_to_twenty_rounds_entered_by_the_banker(server: ServerProcess) -> None:
    for body in ({}, {"game": "bank"}):
        state = post(server, "/api/rooms", body).json()["state"]
        assert (state["rounds"], state["roll_entry"]) == (20, "banker")
    assert httpx.post(f"{server.base_url}/api/rooms").status_code == 201


@pytest.mark.parametrize(
    "body",
    [
        {"rounds": 0},
        {"rounds": 101},
        {"rounds": "20"},
        {"rounds": 20.0},
        {"rounds": True},
        {"roll_entry": "dealer"},
        {"game": "chess"},
    ],
)
def test_create_room_refuses_bad_options(server: ServerProcess, body: dict[str, Any]) -> None:
    assert_error(post(server, "/api/rooms", body), 422, "bad_request")


@pytest.mark.parametrize("content_type", [None, "text/plain", "application/x-www-form-urlencoded"])
def test_bodies_must_be_declared_json(server: ServerProcess, content_type: str | None) -> None:
    """What another site's page may send without asking (CORS's simple requests) is
    refused 415, and changes nothing."""
    table = Table(server.base_url)
    headers = {"content-type": content_type} if content_type else {}
    created = httpx.post(f"{server.base_url}/api/rooms", content=b'{"rounds": 3}', headers=headers)
    assert created.status_code == 415
    assert created.json()["error"]["code"] == "unsupported_media_type"
    joined = httpx.post(
        f"{server.base_url}/api/rooms/{table.code}/players",
        content=b'{"name": "Ann"}',
        headers=headers,
    )
    assert joined.status_code == 415 and table.state()["players"] == []


def test_a_json_body_with_a_charset_is_read(server: ServerProcess) -> None:
    headers = {"content-type": "application/json; charset=utf-8"}
    created = httpx.post(f"{server.base_url}/api/rooms", content=b'{"rounds": 3}', headers=headers)
    assert created.status_code == 201 and created.json()["state"]["rounds"] == 3


def test_create_room_refuses_malformed_json(server: ServerProcess) -> None:
    response = httpx.post(
        f"{server.base_url}/api/rooms",
        content=b"{not json",
        headers={"content-type": "application/json"},
    )
    assert response.status_code in (400, 422)
    assert response.json()["error"]["code"] == "bad_request"


def test_join_trims_the_name_and_returns_a_seat(server: ServerProcess) -> None:
    table = Table(server.base_url)
    response = post(server, f"/api/rooms/{table.code}/players", {"name": "  Ann  "})
    assert response.status_code == 201
    body = response.json()
    assert body["state"]["players"] == [
        {
            "id": body["player_id"],
            "name": "Ann",
            "score": 0,
            "banked": False,
            "connected": False,
            "has_phone": True,
            "waiting": False,
        }
    ]
    assert len(body["token"]) >= 22


@pytest.mark.parametrize(
    "name", ["", "   ", "x" * 25, "Ann\u0000", "Bob\u200b", "\u202eevil", "tab\there"]
)
def test_join_refuses_bad_names(server: ServerProcess, name: str) -> None:
    table = Table(server.base_url)
    assert_error(post(server, f"/api/rooms/{table.code}/players", {"name": name}), 422, "bad_name")
    assert table.state()["players"] == []


def test_join_accepts_twenty_four_code_points(server: ServerProcess) -> None:
    table = Table(server.base_url)
    name = "Ä" * 23 + "🎲"
    assert post(server, f"/api/rooms/{table.code}/players", {"name": name}).status_code == 201


def test_join_refuses_a_name_that_is_not_a_string(server: ServerProcess) -> None:
    table = Table(server.base_url)
    response = post(server, f"/api/rooms/{table.code}/players", {"name": 7})
    assert response.status_code == 422
    assert response.json()["error"]["code"] == "bad_name"


def test_join_refuses_a_taken_name_compared_casefolded(server: ServerProcess) -> None:
    table = Table(server.base_url)
    table.join("Straße")
    response = post(server, f"/api/rooms/{table.code}/players", {"name": "STRASSE"})
    assert_error(response, 409, "name_taken")
    assert len(table.state()["players"]) == 1


async def test_join_after_start_is_refused(server: ServerProcess) -> None:
    from tests.client import Client

    table = Table(server.base_url)
    table.join("Ann")
    banker = await Client.connect(server.ws_url, table.code, table.banker_token)
    await banker.ok(type="start")
    await banker.close()
    response = post(server, f"/api/rooms/{table.code}/players", {"name": "Late"})
    assert_error(response, 409, "not_in_lobby")


def test_unknown_room_is_404_everywhere(server: ServerProcess) -> None:
    assert_error(httpx.get(f"{server.base_url}/api/rooms/ZZZZ"), 404, "unknown_room")
    assert_error(httpx.get(f"{server.base_url}/api/rooms/ZZZZ/log"), 404, "unknown_room")
    assert_error(post(server, "/api/rooms/ZZZZ/players", {"name": "Ann"}), 404, "unknown_room")


def test_room_codes_are_case_insensitive(server: ServerProcess) -> None:
    table = Table(server.base_url)
    lower = httpx.get(f"{server.base_url}/api/rooms/{table.code.lower()}")
    assert lower.status_code == 200 and lower.json()["state"]["code"] == table.code


def test_log_starts_with_create_and_chains(server: ServerProcess) -> None:
    table = Table(server.base_url, rounds=10, roll_entry="roller")
    table.join("Ann")
    events = table.log()
    assert [e["type"] for e in events] == ["create", "join"]
    assert events[0]["data"] == {"game": "bank", "rounds": 10, "roll_entry": "roller"}
    assert events[0]["by"] == "banker"
    assert events[1]["by"] == events[1]["data"]["player_id"]
    assert verify(events)
    assert table.banker_token not in str(events)


def test_health_readiness_and_no_api_docs_by_default(server: ServerProcess) -> None:
    assert httpx.get(f"{server.base_url}/healthz").json() == {"status": "ok"}
    assert httpx.get(f"{server.base_url}/readyz").status_code == 200
    for path in ("/docs", "/redoc", "/openapi.json"):
        assert httpx.get(f"{server.base_url}{path}").status_code == 404, path


def test_the_api_docs_where_a_developer_asks_for_them() -> None:
    """BANKIT_API_DOCS=true (`make run` sets it) serves /docs and the OpenAPI schema."""
    app = create_app(Settings(api_docs=True, store="memory"))
    assert (app.docs_url, app.redoc_url) == ("/docs", "/redoc")
    paths = app.openapi()["paths"]
    for path in (
        "/api/rooms",
        "/api/rooms/{code}/players",
        "/api/rooms/{code}",
        "/api/rooms/{code}/log",
        "/api/tournaments/{code}/log",
    ):
        assert path in paths


def test_unknown_path_gets_the_error_body(server: ServerProcess) -> None:
    assert_error(httpx.get(f"{server.base_url}/api/nothing"), 404, "not_found")


def test_the_server_lists_the_games_it_hosts(server: ServerProcess) -> None:
    offered = httpx.get(f"{server.base_url}/api/games").json()
    by_name = {game["name"]: game for game in offered}
    assert by_name["bank"] == {"name": "bank", "title": "BANK!", "collection": "rooms"}
    assert by_name["tournament"]["collection"] == "tournaments"


def test_a_game_of_another_collection_is_not_created_as_a_room(server: ServerProcess) -> None:
    assert_error(post(server, "/api/rooms", {"game": "tournament"}), 422, "bad_request")
