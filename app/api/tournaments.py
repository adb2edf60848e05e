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

from app.api.http import (
    ERRORS,
    create_game,
    seat_player,
    services_of,
    stored,
    stored_log,
)
from app.api.protocol import JoinRoom, PlayerJoined, RoomLog, RoomState
from app.api.tournament_scoresheet import filename, scoresheet_csv

router = APIRouter(prefix="/api/tournaments", responses=ERRORS)
COLLECTION = "tournaments"


class TournamentCreated(BaseModel):
    code: str
    organiser_token: str
    state: dict[str, Any]


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
