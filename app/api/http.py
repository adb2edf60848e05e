"""The HTTP API of the protocol: create a room, join it, read its state and its log."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Body, Header, Query, Request, Response
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ValidationError
from starlette.concurrency import run_in_threadpool

from app.api.errors import ApiError
from app.api.protocol import (
    ErrorBody,
    JoinRoom,
    PlayerJoined,
    RoomCreated,
    RoomLog,
    RoomState,
)
from app.api.services import Services
from app.games.registry import BadCommand
from app.games.seam import PLAYER
from app.rooms.envelope import CommandEnvelope
from app.rooms.tokens import hash_token, new_player_id, new_token

JOIN_TIMEOUT_SECONDS = 5.0
JSON = "application/json"
LOG_FULL = "This game's log is full (BANKIT_MAX_LOG_EVENTS): start a new game."
ERRORS: dict[int | str, dict[str, object]] = {
    code: {"model": ErrorBody} for code in (400, 404, 409, 422, 429, 503)
}

router = APIRouter(prefix="/api", responses=ERRORS)


def services_of(request: Request) -> Services:
    return request.app.state.services  # type: ignore[no-any-return]


class GameOffered(BaseModel):
    name: str
    title: str
    collection: str  # POST /api/<collection> creates one (its `game` field names it)


@router.get("/games", response_model=list[GameOffered])
async def games(request: Request) -> list[GameOffered]:
    """The games this server hosts, for the home page to offer."""
    return [
        GameOffered(name=g.name, title=g.title, collection=g.collection)
        for g in services_of(request).games
        if g.offered
    ]


@router.post("/rooms", status_code=201, response_model=RoomCreated)
async def create_room(
    request: Request, body: Annotated[dict[str, Any] | None, Body()] = None
) -> RoomCreated:
    """Create a game (`game`: one of this server's, by default the first one registered,
    BANK!, and that game's options); the caller becomes its banker (keep `banker_token`
    secret)."""
    token, state = await create_game(services_of(request), body or {}, "rooms")
    return RoomCreated(code=state["code"], banker_token=token, state=state)


@router.post("/rooms/{code}/players", status_code=201, response_model=PlayerJoined)
async def join_room(
    code: str,
    body: JoinRoom,
    request: Request,
    authorization: Annotated[str | None, Header()] = None,
) -> PlayerJoined:
    """Take a seat while the room is in the lobby (the banker adds phoneless players here
    too, `"phone": false`); after the start only with `Authorization: Bearer <banker token>`."""
    services = services_of(request)
    by_banker = authorization is not None and await is_creator(services, code, authorization)
    return await seat_player(
        services,
        code,
        body.name,
        "rooms",
        phone=body.phone,
        by_banker=by_banker,
        client_seed=body.client_seed,
    )


@router.get("/rooms/{code}", response_model=RoomState)
async def room_state(code: str, request: Request) -> RoomState:
    """What a spectator sees."""
    snapshot = await stored(services_of(request), code, "rooms")
    return RoomState(state=snapshot["state"])


@router.get("/rooms/{code}/log", response_model=RoomLog)
async def room_log(
    code: str,
    request: Request,
    after: Annotated[int, Query(ge=0)] = 0,
    limit: Annotated[int | None, Query(ge=1)] = None,
) -> Response:
    """The room's events, hash-chained (see docs/protocol.md to verify it): those after
    seq `after`, at most `limit` (and `BANKIT_LOG_PAGE`: a page holds an ordinary
    game's whole log); `next_after` is the `after` of the next page, or null."""
    return await paged_log(services_of(request), code, "rooms", after, limit)


async def paged_log(
    services: Services, code: str, collection: str, after: int, limit: int | None
) -> Response:
    """One page of a room's log (`log_page`), built in a thread: the loop never waits on it."""
    await stored(services, code, collection)
    page = min(limit or services.settings.log_page, services.settings.log_page)
    entries = await services.bus.load_log(code.upper())
    return Response(await run_in_threadpool(log_page, entries, after, page), media_type=JSON)


def add_log_route(api: APIRouter, collection: str) -> None:
    """`GET <api's prefix>/{code}/log` for another collection (tournaments, groups),
    paged as a room's is."""

    @api.get("/{code}/log", response_model=RoomLog, name=f"{collection}_log")
    async def collection_log(
        code: str,
        request: Request,
        after: Annotated[int, Query(ge=0)] = 0,
        limit: Annotated[int | None, Query(ge=1)] = None,
    ) -> Response:
        """The events, hash-chained, paged as a room's are (`after`, `limit`, `next_after`)."""
        return await paged_log(services_of(request), code, collection, after, limit)


def log_page(entries: list[bytes], after: int, limit: int) -> bytes:
    """The page's JSON from the stored entries as they are (seqs run 1, 2, 3...: the
    entry of seq n is the n-th), never parsed: a long log costs the loop nothing."""
    page = entries[after : after + limit]
    more = after + limit < len(entries)
    next_after = str(after + len(page)).encode() if more else b"null"
    return b'{"events":[' + b",".join(page) + b'],"next_after":' + next_after + b"}"


# -- what the routes of every collection (rooms, tournaments) share --------------------------
async def create_game(
    services: Services, body: dict[str, Any], collection: str
) -> tuple[str, dict[str, Any]]:
    """A new room of the body's `game` (by default the collection's first game); its
    creator's token and its first state."""
    hosted = [g.name for g in services.games if g.collection == collection]
    game = services.games.get(str(body.get("game", hosted[0] if hosted else "")))
    if game is None or game.collection != collection:
        raise ApiError("bad_request", f"game: this server hosts {', '.join(hosted)} here.", 422)
    try:
        options = game.create_options(body)
    except ValidationError as error:
        raise RequestValidationError(error.errors(include_url=False)) from None
    token = new_token()
    state = await services.registry.create(game, options, [hash_token(token)])
    return token, state


async def stored(services: Services, code: str, collection: str) -> dict[str, Any]:
    """The room's snapshot, or 404 when there is none of this collection."""
    snapshot = await services.registry.snapshot(code.upper())
    game = services.games.get(snapshot["game"]) if snapshot else None
    if snapshot is None or game is None or game.collection != collection:
        raise ApiError(f"unknown_{collection[:-1]}", f"No such {collection[:-1]}.", 404)
    return snapshot


def bearer_principal(snapshot: dict[str, Any], authorization: str | None) -> str | None:
    """Whose token `Authorization: Bearer <token>` carries in this room, if anyone's."""
    scheme, _, token = (authorization or "").partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return None
    principal: str | None = snapshot["tokens"].get(hash_token(token.strip()))
    return principal


async def is_creator(services: Services, code: str, authorization: str) -> bool:
    """The bearer token is the room creator's (its banker's); 403 not_allowed if it is not."""
    snapshot = await stored(services, code, "rooms")
    if bearer_principal(snapshot, authorization) != snapshot["creator"]:
        raise ApiError("not_allowed", "Only the banker's token seats a player late.", 403)
    return True


async def ask(services: Services, code: str, envelope: CommandEnvelope) -> dict[str, Any]:
    """Send one command through the room's single order; its `ack`, or its error as an
    ApiError (`unavailable` when the room does not answer in time)."""
    try:
        reply = await services.hub.request(code, envelope, JOIN_TIMEOUT_SECONDS)
    except TimeoutError:
        raise ApiError("unavailable", "The room did not answer in time; retry.") from None
    if reply["type"] == "error":
        raise ApiError(reply["code"], reply["message"])
    return reply


async def seat_player(
    services: Services,
    code: str,
    name: str,
    collection: str,
    *,
    phone: bool = True,
    by_banker: bool = False,
    client_seed: str | None = None,
) -> PlayerJoined:
    """A `join` through the room's single order; its answer decides."""
    code = code.upper()
    snapshot = await stored(services, code, collection)
    if snapshot["seq"] >= services.settings.max_log_events:
        raise ApiError("log_full", LOG_FULL, 409)
    game = services.games[snapshot["game"]]
    token, player_id = new_token(), new_player_id()
    command: dict[str, Any] = {"type": "join", "player_id": player_id, "name": name}
    if not phone:
        command["phone"] = False
    if by_banker:
        command["by_banker"] = True
    if client_seed is not None:
        command["client_seed"] = client_seed  # the room logs it (docs/fair-dice.md)
    try:
        join = game.server_command(command)
    except BadCommand:  # the JSON of the name itself is broken (a lone surrogate)
        raise ApiError("bad_name", "A name cannot hold invalid Unicode.") from None
    envelope = CommandEnvelope(
        role=PLAYER, pid=player_id, id=None, cmd=join, th=hash_token(token), server=True
    )
    await ask(services, code, envelope)
    after = await services.registry.snapshot(code)
    state = after["state"] if after else {}
    return PlayerJoined(player_id=player_id, token=token, state=state)


health = APIRouter(include_in_schema=True)


@health.get("/healthz")
async def healthz() -> dict[str, str]:
    """The process is alive."""
    return {"status": "ok"}


@health.get("/readyz")
async def readyz(request: Request) -> JSONResponse:
    """The process can serve rooms (its backplane answers)."""
    if await services_of(request).bus.ready():
        return JSONResponse({"status": "ready"})
    return JSONResponse(
        {"error": {"code": "unavailable", "message": "The game store is unreachable."}},
        status_code=503,
    )
