"""The HTTP API and pages of groups (docs/protocol.md, "Groups", an extension).

A group is a room of the game "group" in the collection "groups" (same codes, tokens,
log and sockets: `/ws/groups/{code}`); its creator is the host. A member joins once
with a name: the name goes on a member card (a room of the game "member" whose code is
the member's id) and the member token (192 bits, stored hashed, like a seat's) opens
the group and the games it starts as them. Leaving deletes the card first (so a crash
in between leaves a nameless member who can leave again) and then sends `leave`.
"""

from __future__ import annotations

import asyncio
from typing import Annotated, Any

from fastapi import APIRouter, Body, Header, Request
from fastapi.responses import FileResponse, Response
from pydantic import BaseModel, ConfigDict, ValidationError

from app.api.errors import ApiError
from app.api.http import (
    ERRORS,
    add_log_route,
    ask,
    bearer_principal,
    create_game,
    services_of,
    stored,
)
from app.api.pages import page
from app.api.scoresheets import to_csv
from app.api.services import Services
from app.games.group.rules import HOST
from app.games.group.standings import csv_rows
from app.games.names import name_taken
from app.games.seam import PLAYER, SYSTEM
from app.rooms.envelope import CommandEnvelope
from app.rooms.tokens import hash_token, new_token

COLLECTION = "groups"
router = APIRouter()
api = APIRouter(
    prefix=f"/api/{COLLECTION}", responses={**ERRORS, 401: ERRORS[400], 403: ERRORS[400]}
)


class GroupCreated(BaseModel):
    code: str
    host_token: str
    state: dict[str, Any]


class GroupState(BaseModel):
    state: dict[str, Any]
    names: dict[str, str]  # member id -> name, from their cards


class JoinGroup(BaseModel):
    model_config = ConfigDict(extra="ignore")
    name: str


class MemberJoined(BaseModel):
    member_id: str
    token: str


class StartGame(BaseModel):
    model_config = ConfigDict(extra="ignore")
    game: str
    options: dict[str, Any] = {}


class GameSeat(BaseModel):
    player_id: str
    collection: str


async def _names(services: Services, members: list[str]) -> dict[str, str]:
    cards = await asyncio.gather(*(services.registry.snapshot(m) for m in members))
    return {m: c["state"]["name"] for m, c in zip(members, cards) if c and c["game"] == "member"}


async def _principal(services: Services, code: str, authorization: str | None) -> str:
    snapshot = await stored(services, code, COLLECTION)
    principal = bearer_principal(snapshot, authorization)
    if principal is None:
        raise ApiError("bad_token", "Send Authorization: Bearer <your group token>.", 401)
    return principal


async def _host(services: Services, code: str, authorization: str | None) -> None:
    if await _principal(services, code, authorization) != HOST:
        raise ApiError("not_allowed", "Only the host does this.", 403)


@api.post("", status_code=201, response_model=GroupCreated)
async def create_group(
    request: Request, body: Annotated[dict[str, Any] | None, Body()] = None
) -> GroupCreated:
    """Create a group; the caller is its host (keep `host_token` secret)."""
    options = {**(body or {}), "game": "group"}
    token, state = await create_game(services_of(request), options, COLLECTION)
    return GroupCreated(code=state["code"], host_token=token, state=state)


@api.get("/{code}", response_model=GroupState)
async def group_state(code: str, request: Request) -> GroupState:
    services = services_of(request)
    state = (await stored(services, code, COLLECTION))["state"]
    names = await _names(services, [m["id"] for m in state["members"]])
    return GroupState(state=state, names=names)


add_log_route(api, COLLECTION)


@api.post("/{code}/members", status_code=201, response_model=MemberJoined)
async def join_group(code: str, body: JoinGroup, request: Request) -> MemberJoined:
    """Become a member: the name goes on a card of its own, the token opens the group."""
    services, code = services_of(request), code.upper()
    state = (await stored(services, code, COLLECTION))["state"]
    names = await _names(services, [m["id"] for m in state["members"]])
    card_game = services.games["member"]
    try:
        options = card_game.create_options({"name": body.name, "group": code})
    except ValidationError:
        raise ApiError("bad_name", "A name is 1 to 24 characters.") from None
    if name_taken(body.name.strip(), names.values()):
        raise ApiError("name_taken", f"{body.name.strip()!r} is taken in this group.", 409)
    card = (await services.registry.create(card_game, options, []))["code"]
    token = new_token()
    join = services.games["group"].server_command({"type": "join", "player_id": card})
    envelope = CommandEnvelope(PLAYER, card, None, join, th=hash_token(token), server=True)
    try:
        await ask(services, code, envelope)
    except ApiError:
        await services.registry.free(card)  # never joined: no card left behind
        raise
    return MemberJoined(member_id=card, token=token)


@api.delete("/{code}/members/me", status_code=204)
async def leave_group(
    code: str, request: Request, authorization: Annotated[str | None, Header()] = None
) -> Response:
    """Leave and take your history out: your card (your name) is deleted, then your id
    and every row of yours leave the group's state."""
    services, code = services_of(request), code.upper()
    member = await _principal(services, code, authorization)
    if member == HOST:
        raise ApiError("not_allowed", "The host's token is not a member's.", 403)
    await services.registry.free(member)
    leave = services.games["group"].server_command({"type": "leave", "player_id": member})
    await ask(services, code, CommandEnvelope(SYSTEM, None, None, leave, server=True))
    return Response(status_code=204)


@api.post("/{code}/games", status_code=202)
async def start_game(
    code: str,
    body: StartGame,
    request: Request,
    authorization: Annotated[str | None, Header()] = None,
) -> dict[str, int]:
    """The host starts a game of the group; its code appears in the group's state."""
    services, code = services_of(request), code.upper()
    await _host(services, code, authorization)
    game = services.games.get(body.game)
    if game is None or game.name not in ("bank", "bunco", "tournament"):
        raise ApiError("bad_game", "A group plays bank, bunco or tournament.", 422)
    try:
        game.create_options({**body.options, "parent": code, "group": True}, server=True)
    except ValidationError as error:
        raise ApiError("bad_request", f"options: {error.errors()[0]['msg']}", 422) from None
    command = {"type": "start_game", "game": game.name, "options": body.options}
    text = services.games["group"].server_command(command)
    reply = await ask(services, code, CommandEnvelope(HOST, None, None, text, server=True))
    return {"seq": int(reply["seq"])}


@api.post("/{code}/games/{game_code}/players", status_code=201, response_model=GameSeat)
async def join_game(
    code: str,
    game_code: str,
    request: Request,
    authorization: Annotated[str | None, Header()] = None,
) -> GameSeat:
    """A member takes a seat in one of the group's games as themselves, with one tap:
    their member token opens that seat (`Authorization: Bearer <member token>`)."""
    services, code, game_code = services_of(request), code.upper(), game_code.upper()
    member = await _principal(services, code, authorization)
    state = (await stored(services, code, COLLECTION))["state"]
    line = next((g for g in state["games"] if g["code"] == game_code), None)
    if member == HOST or line is None:
        raise ApiError("not_allowed", "Members join the group's own games.", 403)
    name = (await _names(services, [member])).get(member)
    if name is None:
        raise ApiError("unknown_player", "No such member.", 404)
    game = services.games[line["game"]]
    join = game.server_command({"type": "join", "player_id": member, "name": name})
    token = (authorization or "").partition(" ")[2].strip()
    envelope = CommandEnvelope(PLAYER, member, None, join, th=hash_token(token), server=True)
    await ask(services, game_code, envelope)
    return GameSeat(player_id=member, collection=game.collection)


@api.post("/{code}/seasons", status_code=202)
async def close_season(
    code: str, request: Request, authorization: Annotated[str | None, Header()] = None
) -> dict[str, int]:
    """The host closes the season (it is kept) and starts the next one."""
    services, code = services_of(request), code.upper()
    await _host(services, code, authorization)
    text = services.games["group"].server_command({"type": "close_season"})
    reply = await ask(services, code, CommandEnvelope(HOST, None, None, text, server=True))
    return {"seq": int(reply["seq"])}


@api.get("/{code}/standings.csv", include_in_schema=False)
async def standings_csv(code: str, request: Request) -> Response:
    """Every season's standings as CSV, members named."""
    services = services_of(request)
    state = (await stored(services, code, COLLECTION))["state"]
    names = await _names(services, [m["id"] for m in state["members"]])
    disposition = f'attachment; filename="group-{code.upper()}-standings.csv"'
    return Response(
        to_csv(csv_rows(state, names)),
        media_type="text/csv",
        headers={"Content-Disposition": disposition},
    )


@router.get("/g", include_in_schema=False)
async def new_group_page() -> FileResponse:
    return page("group.html")


@router.get("/g/{code}", include_in_schema=False)
async def group_page(code: str) -> FileResponse:
    """The phone page of a group: join, its games, its season."""
    return page("group.html")


@router.get("/watch/g/{code}", include_in_schema=False)
async def group_watch_page(code: str) -> FileResponse:
    """The TV page of a group: the season's standings."""
    return page("group-tv.html")


router.include_router(api)
