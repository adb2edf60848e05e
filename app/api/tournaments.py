"""The HTTP API of tournaments (PROTOCOL-tournament.md): the routes of rooms, renamed.

A tournament is a room of the game "tournament" in the collection "tournaments":
same codes, tokens, log and sockets (`/ws/tournaments/{code}`); its creator is the
organiser.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Body, Request
from fastapi.responses import Response
from pydantic import BaseModel

from app.api.errors import ApiError
from app.api.http import (
    ERRORS,
    JOIN_TIMEOUT_SECONDS,
    bearer_principal,
    create_game,
    seat_player,
    services_of,
    stored,
    stored_log,
)
from app.api.protocol import JoinRoom, PlayerJoined, RoomLog, RoomState
from app.api.tournament_scoresheet import filename, scoresheet_csv
from app.rooms.envelope import CommandEnvelope
from app.rooms.tokens import hash_token, new_token
from app.rules.base import SYSTEM

router = APIRouter(
    prefix="/api/tournaments", responses={**ERRORS, 401: ERRORS[400], 403: ERRORS[400]}
)
COLLECTION = "tournaments"


class TournamentCreated(BaseModel):
    code: str
    organiser_token: str
    state: dict[str, Any]


class TableBanker(BaseModel):
    table: int
    code: str  # the table room's
    banker_token: str


@router.post("", status_code=201, response_model=TournamentCreated)
async def create_tournament(
    request: Request, body: Annotated[dict[str, Any] | None, Body()] = None
) -> TournamentCreated:
    """Create a tournament; the caller is its organiser (keep `organiser_token` secret)."""
    options = {**(body or {}), "game": "tournament"}
    token, state = await create_game(services_of(request), options, COLLECTION, "tournament")
    return TournamentCreated(code=state["code"], organiser_token=token, state=state)


@router.post("/{code}/players", status_code=201, response_model=PlayerJoined)
async def join_tournament(code: str, body: JoinRoom, request: Request) -> PlayerJoined:
    """Join in the lobby or between games; the token opens this player's seats at every table."""
    return await seat_player(services_of(request), code, body.name, COLLECTION)


@router.get("/{code}", response_model=RoomState)
async def tournament_state(code: str, request: Request) -> RoomState:
    return RoomState(state=(await stored(services_of(request), code, COLLECTION))["state"])


@router.get("/{code}/log", response_model=RoomLog)
async def tournament_log(code: str, request: Request) -> RoomLog:
    return RoomLog(events=await stored_log(services_of(request), code, COLLECTION))


@router.get("/{code}/scoresheet.csv", response_class=Response)
async def tournament_scoresheet(code: str, request: Request) -> Response:
    """The standings as a spreadsheet: per game total, place and points, bonus, total, rank."""
    snapshot = await stored(services_of(request), code, COLLECTION)
    return Response(
        scoresheet_csv(snapshot["state"]),
        media_type="text/csv; charset=utf-8",
        headers={"Content-Disposition": f'attachment; filename="{filename(snapshot["code"])}"'},
    )


@router.post("/{code}/tables/{table}/banker", status_code=201, response_model=TableBanker)
async def table_banker(code: str, table: int, request: Request) -> TableBanker:
    """A new banker token for one table room of the game in play, so that the organiser can
    hand that table to its own scorekeeper (`Authorization: Bearer <organiser_token>`)."""
    services = services_of(request)
    snapshot = await stored(services, code, COLLECTION)
    principal = bearer_principal(snapshot, request.headers.get("authorization"))
    if principal is None:
        raise ApiError("bad_token", "Send Authorization: Bearer <organiser_token>.", 401)
    if principal != snapshot["creator"]:
        raise ApiError("not_allowed", "Only the organiser hands out table bankers.", 403)
    room = next((t for t in snapshot["state"]["tables"] if t["table"] == table), None)
    if room is None:
        raise ApiError("unknown_table", "The game in play has no such table.", 404)
    new = new_token()
    command = services.games["bank"].server_command({"type": "add_banker"})
    envelope = CommandEnvelope(
        role=SYSTEM, pid=None, id=None, cmd=command, th=hash_token(new), server=True
    )
    try:
        reply = await services.hub.request(room["code"], envelope, JOIN_TIMEOUT_SECONDS)
    except TimeoutError:
        raise ApiError("unavailable", "The table did not answer in time; retry.") from None
    if reply["type"] == "error":
        raise ApiError(reply["code"], reply["message"])
    return TableBanker(table=table, code=room["code"], banker_token=new)
