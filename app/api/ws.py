"""The WebSocket endpoint: authenticate, welcome, then validate every message at the edge."""

from __future__ import annotations

import contextlib
from typing import Any

from fastapi import APIRouter, WebSocket

from app.api.connection import (
    CLOSE_BAD_TOKEN,
    CLOSE_POLICY,
    CLOSE_TOO_BIG,
    CLOSE_TRY_LATER,
    CLOSE_UNKNOWN_ROOM,
    Connection,
)
from app.api.protocol import BadMessage, read_message
from app.api.services import Services
from app.bus.base import BusUnavailable
from app.rooms.envelope import CommandEnvelope, PresenceEnvelope
from app.rooms.outgoing import error_text, pong, welcome
from app.rooms.registry import UnknownRoom
from app.rooms.tokens import hash_token
from app.rules.base import PLAYER, SPECTATOR, Sender

router = APIRouter()


def identify(snapshot: dict[str, Any], token: str | None) -> Sender | None:
    """Spectator without a token; None for a token this room does not know."""
    if not token:
        return Sender(SPECTATOR)
    principal = snapshot["tokens"].get(hash_token(token))
    if principal is None:
        return None
    if principal in (snapshot["creator"], SPECTATOR):  # a spectator's: another table's player
        return Sender(principal)
    return Sender(PLAYER, principal)


@router.websocket("/ws/{collection}/{code}")
async def room_socket(websocket: WebSocket, collection: str, code: str) -> None:
    """`/ws/rooms/{code}` and `/ws/tournaments/{code}`: one endpoint for every game."""
    services: Services = websocket.app.state.services
    settings = services.settings
    code = code.upper()
    await websocket.accept()
    if services.hub.connections >= settings.max_connections:
        await websocket.close(CLOSE_TRY_LATER, "This server is full; try again shortly.")
        return
    identity = await _admit(services, websocket, collection, code)
    if identity is None:
        return

    conn = Connection(
        websocket,
        code,
        identity,
        queue_limit=settings.send_queue,
        rate=settings.rate_per_second,
        burst=settings.rate_burst,
    )
    try:
        await services.hub.add(conn)
    except BusUnavailable:
        await websocket.close(CLOSE_TRY_LATER, "The game store is unreachable; retrying helps.")
        return
    try:
        await _welcome(services, conn)
        await _presence(services, conn, +1)
        await _serve(services, conn)
    except (BusUnavailable, UnknownRoom):
        conn.close(CLOSE_TRY_LATER)
    finally:
        if conn.closing:
            await conn.drained()
        await services.hub.remove(conn)
        with contextlib.suppress(BusUnavailable, UnknownRoom):
            await _presence(services, conn, -1)
        await conn.stop()


async def _admit(
    services: Services, websocket: WebSocket, collection: str, code: str
) -> Sender | None:
    """Who this socket is in the room, or None once it is closed with the reason.

    Its own function, so that the snapshot it reads is not kept for the socket's life."""
    try:
        snapshot = await services.registry.snapshot(code)
    except BusUnavailable:
        await websocket.close(CLOSE_TRY_LATER, "The game store is unreachable; retrying helps.")
        return None
    game = services.games.get(snapshot["game"]) if snapshot is not None else None
    if snapshot is None or game is None or game.collection != collection:
        await websocket.close(CLOSE_UNKNOWN_ROOM, "No such room.")
        return None
    token = websocket.query_params.get("token")
    identity = identify(snapshot, token)
    if identity is None and snapshot.get("parent"):  # a token its parent gave out later
        with contextlib.suppress(BusUnavailable):
            parent = await services.registry.snapshot(snapshot["parent"])
            identity = Sender(SPECTATOR) if parent and identify(parent, token) else None
    if identity is None:
        await websocket.close(CLOSE_BAD_TOKEN, "This token does not belong to this room.")
    return identity


async def _welcome(services: Services, conn: Connection) -> None:
    """Read the state after subscribing, so that no later state can be missed."""
    snapshot = await services.registry.snapshot(conn.code)
    if snapshot is None:
        raise UnknownRoom(conn.code)
    conn.last_seq = snapshot["seq"]
    conn.start(welcome(conn.identity.role, conn.identity.player_id, snapshot["state"]))
    services.hub.welcomed(conn)


async def _presence(services: Services, conn: Connection, delta: int) -> None:
    player_id = conn.identity.player_id
    if conn.identity.role == PLAYER and player_id is not None:
        envelope = PresenceEnvelope(services.bus.node_id, player_id, delta)
        await services.registry.submit(conn.code, envelope)


async def _serve(services: Services, conn: Connection) -> None:
    settings = services.settings
    websocket = conn.websocket
    while True:
        message = await websocket.receive()
        if message["type"] == "websocket.disconnect":
            return
        if not conn.bucket.take():
            conn.refused_in_a_row += 1
            if conn.refused_in_a_row > settings.flood_limit:
                conn.close(CLOSE_POLICY, flush=True)
                return
            conn.push(error_text("rate_limited", "Too many messages: slow down."))
            continue
        conn.refused_in_a_row = 0
        text = message.get("text")
        if text is None:
            conn.push(error_text("bad_message", "Binary frames are not accepted: send JSON text."))
            continue
        if len(text) > settings.max_frame_bytes or len(text.encode()) > settings.max_frame_bytes:
            conn.close(CLOSE_TOO_BIG)
            return
        await _handle(services, conn, text)


async def _handle(services: Services, conn: Connection, text: str) -> None:
    try:
        message = read_message(text)
        if message.type == "ping":
            conn.push(pong(message.id))
            return
    except BadMessage as bad:
        conn.push(error_text("bad_message", bad.message, bad.command_id))
        return
    identity = conn.identity  # spectators too: the room answers in the protocol's order
    envelope = CommandEnvelope(
        role=identity.role,
        pid=identity.player_id,
        id=message.id,
        cmd=text,
        node=services.bus.node_id,
        key=conn.key,
    )
    envelope = services.hub.pending.track(conn.code, envelope)  # answered once, whatever fails
    try:
        await services.registry.submit(conn.code, envelope)
    except BusUnavailable:
        services.hub.pending.drop(envelope.key)
        conn.push(
            error_text("unavailable", "The room cannot take commands now; retry.", message.id)
        )
