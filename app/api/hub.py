"""This process's sockets, grouped by room: where published frames and replies land.

Frames come from the bus, encoded once by the room's owner; the hub hands the same
text to every local connection of the room. Replies are routed by key to the
connection (or the HTTP request) that sent the command.
"""

from __future__ import annotations

import asyncio
import dataclasses
import secrets
from collections.abc import Coroutine
from typing import Any

import orjson

from app.api.connection import (
    CLOSE_BAD_TOKEN,
    CLOSE_GOING_AWAY,
    CLOSE_UNKNOWN_ROOM,
    Connection,
)
from app.api.framing import text_frame
from app.api.pending import Pending
from app.bus.base import GONE, Bus, BusUnavailable, Frame
from app.games.patch import diff
from app.rooms import outgoing
from app.rooms.envelope import CommandEnvelope
from app.rooms.registry import RoomRegistry


class Hub:
    def __init__(self, bus: Bus, registry: RoomRegistry) -> None:
        self.bus = bus
        self.registry = registry
        self.rooms: dict[str, set[Connection]] = {}
        self._replies: dict[str, Connection | asyncio.Future[bytes]] = {}
        self.connections = 0
        self.latest: dict[str, int] = {}  # highest seq a frame brought, per room with sockets
        self._resyncing: set[str] = set()
        self._tasks: set[asyncio.Task[None]] = set()
        self._corked: list[Connection] = []  # sockets holding frames for their answer
        # The states-as-patches extension: per room with such sockets, how many, and
        # the last state frame (its seq, its view once decoded) the next patch applies to.
        self._patching: dict[str, int] = {}
        self._views: dict[str, tuple[int, _Seen]] = {}
        self.pending = Pending(bus, registry, self.on_reply, self._replies.__contains__)

    # -- membership ------------------------------------------------------------------
    async def add(self, conn: Connection) -> None:
        members = self.rooms.get(conn.code)
        if members is None:
            members = self.rooms[conn.code] = set()
        members.add(conn)
        if conn.patches:
            self._patching[conn.code] = self._patching.get(conn.code, 0) + 1
        self._replies[conn.key] = conn
        self.connections += 1
        try:  # every joiner waits until the room's channel is live (idempotent in the bus)
            await self.bus.subscribe(conn.code)
        except BaseException:
            await self.remove(conn)
            raise

    async def remove(self, conn: Connection) -> None:
        self._replies.pop(conn.key, None)
        members = self.rooms.get(conn.code)
        if members is None or conn not in members:
            return
        members.discard(conn)
        self.connections -= 1
        if conn.patches:
            left = self._patching.pop(conn.code) - 1
            if left:
                self._patching[conn.code] = left
            else:
                self._views.pop(conn.code, None)
        if not members:
            del self.rooms[conn.code]
            self.latest.pop(conn.code, None)
            await self.bus.unsubscribe(conn.code)

    # -- from the bus ------------------------------------------------------------------
    def on_frame(self, code: str, frame: Frame) -> None:
        members = self.rooms.get(code)
        if not members:
            return
        if frame.seq > self.latest.get(code, 0):
            self.latest[code] = frame.seq
        gap = False  # a frame past the next seq: pub/sub lost some (Redis): fetch the snapshot
        if frame.kind == outgoing.STATE:
            wire: bytes | None = None  # framed once, for the sockets that take it whole
            patch = self._patch(code, frame) if code in self._patching else None
            seq = frame.seq
            base, patch_text, patch_frame = patch if patch is not None else (0, "", b"")
            for conn in members:
                last = conn.last_seq
                if last == 0:
                    continue  # not welcomed yet: its welcome carries this state or a newer one
                if conn.awaiting:  # its answer may come with it: one write for both
                    self._cork(conn)
                if seq > last + 1:
                    gap = True
                if patch is None or not conn.push_patch(seq, base, patch_text, patch_frame):
                    if wire is None:  # the whole state: rendered, if it was not, for all
                        wire = text_frame(frame.text.encode())
                    conn.push_state(seq, frame.text, wire, published=True)
        elif frame.kind == outgoing.PRESENCE:
            wire = text_frame(frame.text.encode())
            for conn in members:
                gap = gap or 0 < conn.last_seq < frame.seq
                conn.push(frame.text, wire)
        elif frame.kind == outgoing.KICK:
            for conn in members:
                if conn.identity.player_id == frame.text:
                    conn.close(CLOSE_BAD_TOKEN)
        elif frame.kind == outgoing.REVOKE:
            revoked = set(frame.text.split())
            for conn in members:
                if conn.th in revoked:
                    conn.close(CLOSE_BAD_TOKEN)
        elif frame.kind == GONE:
            for conn in members:
                conn.close(CLOSE_UNKNOWN_ROOM)
        if gap:
            self.resync(code)

    def _patch(self, code: str, frame: Frame) -> tuple[int, str, bytes] | None:
        """The state of `frame` as a patch against the room's previous state, once for
        every socket that asked for patches: (the seq it applies to, its text, its
        frame); None when there is no previous state or the whole state is as short.
        A frame of a room of this process brings its patch (`Frame.ops`); any other is
        diffed against the previous state frame."""
        previous, seen = self._views.get(code), _Seen(frame)
        self._views[code] = (frame.seq, seen)
        if previous is None or previous[0] >= frame.seq:
            return None
        base, before = previous
        made = frame.ops is not None and base == frame.seq - 1  # by the room, from its event
        ops = frame.ops if made else diff(before.view(), seen.view())
        text = orjson.dumps({"type": "patch", "seq": frame.seq, "base": base, "ops": ops})
        if not made and len(text) >= len(frame.text):
            return None
        return base, text.decode(), text_frame(text)

    def sync(self, conn: Connection) -> None:
        """A client whose patches went wrong asks for the whole state (`sync`)."""
        self.spawn(self._sync(conn), f"sync-{conn.code}")

    async def _sync(self, conn: Connection) -> None:
        try:
            snapshot = await self.registry.snapshot(conn.code)
        except BusUnavailable:
            return
        if snapshot is not None:
            text = outgoing.state_text(orjson.dumps(snapshot["state"]))
            conn.resend_state(snapshot["seq"], text)

    def welcomed(self, conn: Connection) -> None:
        """A frame newer than the welcome came while it was read: catch up from the snapshot."""
        if self.latest.get(conn.code, 0) > conn.last_seq:
            self.resync(conn.code)

    def resync(self, code: str) -> None:
        if code in self._resyncing:
            return
        self._resyncing.add(code)
        self.spawn(self._resync(code), f"resync-{code}")

    async def _resync(self, code: str) -> None:
        """Push the stored state to every socket that is behind it (never an older one)."""
        try:
            snapshot = await self.registry.snapshot(code)
        except BusUnavailable:
            return
        finally:
            self._resyncing.discard(code)
        members = self.rooms.get(code)
        if not members:
            return
        if snapshot is None:
            for conn in members:
                conn.close(CLOSE_UNKNOWN_ROOM)
            return
        seq = snapshot["seq"]
        text = outgoing.state_text(orjson.dumps(snapshot["state"]))
        host = bool(snapshot.get("host_connected"))
        presence = outgoing.presence_text(snapshot["connected"], host)
        seated = set(snapshot["tokens"].values())
        for conn in list(members):
            if conn.identity.player_id is not None and conn.identity.player_id not in seated:
                conn.close(CLOSE_BAD_TOKEN)  # kicked while its frame was lost
            elif conn.th is not None and conn.th not in snapshot["tokens"]:
                conn.close(CLOSE_BAD_TOKEN)  # handed over while its frame was lost
            elif 0 < conn.last_seq < seq:
                conn.push_state(seq, text)
                conn.push(presence)

    def _cork(self, conn: Connection) -> None:
        """Hold the socket's frames until its answer comes, or this turn of the loop ends."""
        conn.wire.cork()
        self._corked.append(conn)
        if len(self._corked) == 1:
            asyncio.get_running_loop().call_soon(self._uncork_all)

    def _uncork_all(self) -> None:
        corked, self._corked = self._corked, []
        for conn in corked:
            conn.wire.uncork()

    def on_reply(self, key: str, payload: bytes) -> None:
        target = self._replies.get(self.pending.claim(key) or "")  # once per send
        if isinstance(target, Connection):
            target.awaiting = max(0, target.awaiting - 1)
            target.push(payload.decode())
            target.wire.uncork()
        elif target is not None and not target.done():
            target.set_result(payload)

    # -- a command whose answer an HTTP request waits for ----------------------------------
    async def request(self, code: str, envelope: CommandEnvelope, timeout: float) -> dict[str, Any]:
        """Submit and wait for the answer; TimeoutError when the room's owner is silent."""
        key = "r:" + secrets.token_hex(8)
        future: asyncio.Future[bytes] = asyncio.get_running_loop().create_future()
        self._replies[key] = future
        try:
            addressed = dataclasses.replace(envelope, node=self.bus.node_id, key=key)
            await self.registry.submit(code, self.pending.track(code, addressed))
            async with asyncio.timeout(timeout):
                return orjson.loads(await future)  # type: ignore[no-any-return]
        finally:
            self._replies.pop(key, None)

    def spawn(self, work: Coroutine[Any, Any, None], name: str) -> None:
        """Run `work` in a task this hub keeps until it ends (a socket's short errands)."""
        task = asyncio.create_task(work, name=name)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # -- shutdown -------------------------------------------------------------------------
    async def drain(self) -> None:
        """Close every socket with 1001 so that phones reconnect to another process."""
        members = [conn for conns in self.rooms.values() for conn in conns]
        for conn in members:
            conn.close(CLOSE_GOING_AWAY)
        await asyncio.gather(*(conn.drained() for conn in members), return_exceptions=True)


class _Seen:
    """A room's last state frame, and its view once something decoded it."""

    __slots__ = ("_view", "frame")

    def __init__(self, frame: Frame) -> None:
        self.frame = frame
        self._view: Any = None

    def view(self) -> Any:
        """Its room's rendering, or its text decoded (another process's frame), once."""
        if self._view is None:
            view = self.frame.view
            self._view = view if view is not None else orjson.loads(self.frame.text)["state"]
        return self._view
