"""The WebSocket endpoint as an ASGI route, for ASGI servers other than `python -m app`.

`python -m app` answers `/ws/{collection}/{code}` below ASGI, in its own protocol
(app/api/socket_protocol.py); this route is the same session (app/api/session.py)
over Starlette's WebSocket, for `uvicorn app.main:app` and the like.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Coroutine
from typing import Any

from fastapi import APIRouter, WebSocket
from starlette.websockets import WebSocketState

from app.api.connection import CLOSE_GOING_AWAY, CLOSE_POLICY
from app.api.services import Services
from app.api.session import Session
from app.api.site import origin_allowed

router = APIRouter()


class StarletteWire:
    """A `Wire` over Starlette: one send at a time, each in a short task."""

    out: asyncio.Transport | None = None  # every message goes through Starlette (`write`)

    def __init__(self, websocket: WebSocket) -> None:
        self.websocket = websocket
        self.patches = websocket.query_params.get("patches") == "1"  # docs/protocol.md
        self.session: Session | None = None
        self.sending = False
        self.closed = False
        self.tasks: set[asyncio.Task[None]] = set()

    def write(self, text: str, frame: bytes | None) -> bool:
        if self.closed:
            return True
        if self.sending:
            return False
        self.sending = True
        self._run(self._send(text))
        return True

    def cork(self) -> None:
        """Starlette sends each message apart: nothing to hold."""

    def uncork(self) -> None:
        """See `cork`."""

    def close(self, code: int, reason: str = "") -> None:
        if self.closed:
            return
        self.closed = True
        self._run(self._close(code, reason))
        if self.session is not None:
            self.session.disconnected()

    def _run(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.create_task(work)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def _send(self, text: str) -> None:
        try:
            await self.websocket.send_text(text)
        except Exception:  # noqa: BLE001  (the peer went away mid-send: the reader sees it)
            self.close(CLOSE_GOING_AWAY)
        finally:
            self.sending = False
        conn = self.session.conn if self.session is not None else None
        if conn is not None:
            conn.flush()

    async def _close(self, code: int, reason: str) -> None:
        if self.websocket.application_state != WebSocketState.DISCONNECTED:
            with contextlib.suppress(Exception):
                await self.websocket.close(code, reason)


@router.websocket("/ws/{collection}/{code}")
async def room_socket(websocket: WebSocket, collection: str, code: str) -> None:
    """`/ws/{collection}/{code}`: one endpoint for every game of every collection."""
    services: Services = websocket.app.state.services
    headers = websocket.headers
    if not origin_allowed(headers.get("origin"), headers.get("host"), services.settings):
        await websocket.close(CLOSE_POLICY)  # before the accept: the server answers 403
        return
    await websocket.accept()
    wire = StarletteWire(websocket)
    address = services.limits.key(websocket.client.host if websocket.client else None)
    session = wire.session = Session(
        services, wire, collection, code, websocket.query_params.get("token"), address
    )
    opening = asyncio.create_task(session.open())
    try:
        while True:
            message = await websocket.receive()
            if message["type"] == "websocket.disconnect":
                return
            session.receive(message.get("text"))
    finally:
        wire.closed = True
        session.disconnected()
        await asyncio.gather(opening, *wire.tasks, return_exceptions=True)
        wire.session = None  # no cycle left for the GC
