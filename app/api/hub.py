"""This process's sockets, grouped by room: where published frames and replies land.

Frames come from the bus, encoded once by the room's owner; the hub hands the same
text to every local connection of the room. Replies are routed by key to the
connection (or the HTTP request) that sent the command.
"""

from __future__ import annotations

import asyncio
import secrets
from typing import Any

import orjson

from app.api.connection import (
    CLOSE_BAD_TOKEN,
    CLOSE_GOING_AWAY,
    CLOSE_UNKNOWN_ROOM,
    Connection,
)
from app.bus.base import Bus, Frame
from app.rooms.registry import RoomRegistry


class Hub:
    def __init__(self, bus: Bus, registry: RoomRegistry) -> None:
        self.bus = bus
        self.registry = registry
        self.rooms: dict[str, set[Connection]] = {}
        self._replies: dict[str, Connection | asyncio.Future[bytes]] = {}
        self.connections = 0

    # -- membership ------------------------------------------------------------------
    async def add(self, conn: Connection) -> None:
        members = self.rooms.get(conn.code)
        if members is None:
            members = self.rooms[conn.code] = set()
            await self.bus.subscribe(conn.code)
        members.add(conn)
        self._replies[conn.key] = conn
        self.connections += 1

    async def remove(self, conn: Connection) -> None:
        self._replies.pop(conn.key, None)
        members = self.rooms.get(conn.code)
        if members is None or conn not in members:
            return
        members.discard(conn)
        self.connections -= 1
        if not members:
            del self.rooms[conn.code]
            await self.bus.unsubscribe(conn.code)

    # -- from the bus ------------------------------------------------------------------
    def on_frame(self, code: str, frame: Frame) -> None:
        members = self.rooms.get(code)
        if not members:
            return
        if frame.kind == "state":
            for conn in members:
                conn.push_state(frame.seq, frame.text)
        elif frame.kind == "presence":
            for conn in members:
                conn.push(frame.text)
        elif frame.kind == "kick":
            for conn in members:
                if conn.identity.player_id == frame.text:
                    conn.close(CLOSE_BAD_TOKEN)
        elif frame.kind == "gone":
            for conn in members:
                conn.close(CLOSE_UNKNOWN_ROOM)

    def on_reply(self, key: str, payload: bytes) -> None:
        target = self._replies.get(key)
        if isinstance(target, Connection):
            target.push(payload.decode())
        elif target is not None and not target.done():
            target.set_result(payload)

    # -- a command whose answer an HTTP request waits for ----------------------------------
    async def request(self, code: str, envelope: dict[str, Any], timeout: float) -> dict[str, Any]:
        """Submit and wait for the answer; TimeoutError when the room's owner is silent."""
        key = "r:" + secrets.token_hex(8)
        future: asyncio.Future[bytes] = asyncio.get_running_loop().create_future()
        self._replies[key] = future
        try:
            await self.registry.submit(code, {**envelope, "node": self.bus.node_id, "key": key})
            async with asyncio.timeout(timeout):
                return orjson.loads(await future)  # type: ignore[no-any-return]
        finally:
            self._replies.pop(key, None)

    # -- shutdown -------------------------------------------------------------------------
    async def drain(self) -> None:
        """Close every socket with 1001 so that phones reconnect to another process."""
        members = [conn for conns in self.rooms.values() for conn in conns]
        for conn in members:
            conn.close(CLOSE_GOING_AWAY)
        await asyncio.gather(*(conn.drained() for conn in members), return_exceptions=True)
