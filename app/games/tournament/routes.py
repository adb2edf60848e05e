"""The HTTP API and pages of tournaments (PROTOCOL-tournament.md): the routes of rooms,
renamed, and the table bankers.

A tournament is a room of the game "tournament" in the collection "tournaments":
same codes, tokens, log, scoresheet route and sockets (`/ws/tournaments/{code}`); its
creator is the organiser. Its pages are the rooms' shell at `/t/{code}` and
`/watch/t/{code}`.
"""

from __future__ import annotations

from typing import Annotated, Any

import orjson
from fastapi import APIRouter, Body, Request
from fastapi.responses import FileResponse, Response
from pydantic import BaseModel

from app.api.errors import ApiError
from app.api.http import (
    ERRORS,
    JOIN_TIMEOUT_SECONDS,
    add_log_route,
    bearer_principal,
    create_game,
    seat_player,
    services_of,
    stored,
)
from app.api.pages import page, qr
from app.api.protocol import JoinRoom, PlayerJoined, RoomState
from app.games.seam import SYSTEM
from app.rooms.envelope import CommandEnvelope
from app.rooms.tokens import hash_token, new_token

COLLECTION = "tournaments"
router = APIRouter()
api = APIRouter(
    prefix=f"/api/{COLLECTION}", responses={**ERRORS, 401: ERRORS[400], 403: ERRORS[400]}
)


class TournamentCreated(BaseModel):
    code: str
    organiser_token: str
    state: dict[str, Any]


class TableBanker(BaseModel):
    table: int
    code: str  # the table room's
    banker_token: str


@api.post("", status_code=201, response_model=TournamentCreated)
async def create_tournament(
    request: Request, body: Annotated[dict[str, Any] | None, Body()] = None
) -> TournamentCreated:
    """Create a tournament; the caller is its organiser (keep `organiser_token` secret)."""
    options = {**(body or {}), "game": "tournament"}
    token, state = await create_game(services_of(request), options, COLLECTION)
    return TournamentCreated(code=state["code"], organiser_token=token, state=state)


@api.post("/{code}/players", status_code=201, response_model=PlayerJoined)
async def join_tournament(code: str, body: JoinRoom, request: Request) -> PlayerJoined:
    """Join in the lobby or between games; the token opens this player's seats at every table."""
    return await seat_player(
        services_of(request), code, body.name, COLLECTION, client_seed=body.client_seed
    )


@api.get("/{code}", response_model=RoomState)
async def tournament_state(code: str, request: Request) -> RoomState:
    return RoomState(state=(await stored(services_of(request), code, COLLECTION))["state"])


add_log_route(api, COLLECTION)


@api.post("/{code}/tables/{table}/banker", status_code=201, response_model=TableBanker)
async def table_banker(code: str, table: int, request: Request) -> TableBanker:
    """A new banker token for one table room of the game in play, so that the organiser can
    hand that table to its own scorekeeper (`Authorization: Bearer <organiser_token>`).
    The table's banker role is then held by the organiser's token and this one alone:
    a newer link replaces an older one (and any token the table's role was handed to)."""
    services = services_of(request)
    snapshot = await stored(services, code, COLLECTION)
    authorization = request.headers.get("authorization")
    principal = bearer_principal(snapshot, authorization)
    if principal is None:
        raise ApiError("bad_token", "Send Authorization: Bearer <organiser_token>.", 401)
    if principal != snapshot["creator"]:
        raise ApiError("not_allowed", "Only the organiser hands out table bankers.", 403)
    room = next((t for t in snapshot["state"]["tables"] if t["table"] == table), None)
    if room is None:
        raise ApiError("unknown_table", "The game in play has no such table.", 404)
    new, organiser = new_token(), hash_token((authorization or "").partition(" ")[2].strip())
    command = {"type": "rebind", "how": "banker_link", "host": True, "keep": [organiser]}
    text = orjson.dumps({**command, "token": hash_token(new)}).decode()
    envelope = CommandEnvelope(role=SYSTEM, pid=None, id=None, cmd=text, server=True)
    try:
        reply = await services.hub.request(room["code"], envelope, JOIN_TIMEOUT_SECONDS)
    except TimeoutError:
        raise ApiError("unavailable", "The table did not answer in time; retry.") from None
    if reply["type"] == "error":
        raise ApiError(reply["code"], reply["message"])
    return TableBanker(table=table, code=room["code"], banker_token=new)


@router.get("/t/{code}", include_in_schema=False)
async def tournament_page(code: str) -> FileResponse:
    """The phone page of one tournament: the same shell as a room's."""
    return page("room.html")


@router.get("/watch/t/{code}", include_in_schema=False)
async def tournament_watch_page(code: str) -> FileResponse:
    """The TV page of one tournament."""
    return page("watch.html")


@api.get("/{code}/qr.svg", include_in_schema=False)
async def tournament_qr(code: str, request: Request) -> Response:
    """The tournament's join link (/t/{code}) as an SVG QR code."""
    return await qr(request, code, "t", "tournament")


router.include_router(api)
