"""This process's sockets, grouped by room: where published frames and replies land.

Frames come from the bus, encoded once by the room's owner; the hub hands the same
text to every local connection of the room. Replies are routed by key to the
connection (or the HTTP request) that sent the command.
"""

from __future__ import annotations

import asyncio
import dataclasses
import secrets
from collections.abc import Coroutine, Sequence
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
from app.bus.base import GONE, Bus, BusUnavailable, Frame, Reply
from app.bus.local import LocalBus
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
        # the last state frame (with its view once decoded) the next patch applies to.
        self._patching: dict[str, int] = {}
        self._views: dict[str, tuple[Frame, Any]] = {}
        self.pending = Pending(bus, registry, self.on_reply, self._replies.__contains__)
        if isinstance(bus, LocalBus):  # one process: a commit's frames and answers together
            bus.on_commit = self.deliver

    # -- membership ------------------------------------------------------------------
    async def add(self, conn: Connection) -> None:
        members = self.rooms.get(conn.code)
        if members is None:
            members = self.rooms[conn.code] = set()
            self.latest[conn.code] = 0
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
    def deliver(self, code: str, frames: Sequence[Frame], replies: Sequence[Reply]) -> None:
        """A commit of a room of this process, whole (a one-process bus: app/bus/local.py):
        its frames to the room's sockets, then its answers, each sender's in the same
        write as its state, at once. The usual commit (one command: one state, one
        answer) joins them in the fan-out's own write; any other holds its senders'
        frames (`cork`) until their answers are written."""
        if len(frames) == 1 and len(replies) == 1 and frames[0].kind == outgoing.STATE:
            sender = self._replies.get(replies[0].key)
            members = self.rooms.get(code)
            if isinstance(sender, Connection) and sender.last_seq and members and sender in members:
                self._send_state(code, members, frames[0], False, sender, replies[0].payload)
                return
        if frames:
            for reply in replies:
                target = self._replies.get(reply.key)
                if isinstance(target, Connection):
                    target.wire.cork()  # its `on_reply` uncorks it
        try:
            for frame in frames:
                self._fan_out(code, frame)
        finally:  # a frame that failed must not keep the answers (and the corked) back
            for reply in replies:
                self.on_reply(reply.key, reply.payload)

    def on_frame(self, code: str, frame: Frame) -> None:
        """A frame from a backplane that brings the answers apart (Redis): a socket that
        waits for an answer holds what it gets until the answer comes (`on_reply`) or
        this turn of the loop ends, so that its state and its answer go in one write."""
        self._fan_out(code, frame, True)

    def _fan_out(self, code: str, frame: Frame, apart: bool = False) -> None:
        members = self.rooms.get(code)
        if not members:
            return
        if frame.kind == outgoing.STATE:
            self._send_state(code, members, frame, apart)
            return
        if frame.seq > self.latest[code]:
            self.latest[code] = frame.seq
        gap = False  # a frame past the next seq: pub/sub lost some (Redis): fetch the snapshot
        if frame.kind == outgoing.PRESENCE:
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

    def _send_state(
        self,
        code: str,
        members: set[Connection],
        frame: Frame,
        apart: bool,
        sender: Connection | None = None,
        answer: bytes = b"",
    ) -> None:
        """A state to every welcomed socket of the room: as the patch to those that asked
        for patches and have the state it applies to, whole to the others; `sender`
        gets `answer` (its command's) in the same write. A socket that missed a frame
        before this one (pub/sub lost some: Redis) gets the snapshot (`resync`).

        The hot loop of every action: a socket whose wire takes a built frame now
        (`Wire.out`) gets it from here, without a call; any other (queued, slow,
        closing, held, compressed, Starlette's) through its connection."""
        seq = frame.seq
        if seq > self.latest[code]:
            self.latest[code] = seq
        patch = self._patch(code, frame) if code in self._patching else None
        base, patch_frame = (patch[0], patch[2]) if patch is not None else (-1, b"")
        whole: bytes | None = None  # the whole state's frame: built once, if a socket takes it
        gap = False
        for conn in members:
            last = conn.last_seq
            if last == 0:
                continue  # not welcomed yet: its welcome carries this state or a newer one
            if seq > last + 1:
                gap = True
            if apart and conn.awaiting:
                self._cork(conn)  # its answer may come with it: one write for both
            if last == base == conn.patch_base and conn.patches:  # it has the patch's base
                data = patch_frame
            elif seq > last:
                if whole is None:
                    whole = text_frame(frame.text.encode())
                data = whole
            else:
                data = b""  # it has this state, or a newer one, already
            out = conn.wire.out if conn.direct else None
            if out is None or out.is_closing():
                self._send_slowly(conn, frame, patch, whole, answer if conn is sender else None)
                continue
            # Straight to its transport, as `Connection.push_patch` or `push_state` would.
            if data:
                conn.last_seq = conn.patch_base = seq
            if conn is sender:
                if conn.awaiting:
                    conn.awaiting -= 1
                data += text_frame(answer)
            if data:
                out.write(data)
        if gap:
            self.resync(code)

    def _send_slowly(
        self,
        conn: Connection,
        frame: Frame,
        patch: tuple[int, bytes, bytes] | None,
        whole: bytes | None,
        answer: bytes | None,
    ) -> None:
        """A state through the socket's connection (its queue, its wire); then `answer`,
        when it is the sender's, held with it for one write."""
        if answer is not None:
            conn.wire.cork()
        seq = frame.seq
        if patch is None or not conn.push_patch(seq, patch[0], patch[1].decode(), patch[2]):
            conn.push_state(seq, frame.text, whole, published=True)
        if answer is not None:
            self._answer(conn, answer)
            conn.wire.uncork()

    def _patch(self, code: str, frame: Frame) -> tuple[int, bytes, bytes] | None:
        """The state of `frame` as a patch against the room's previous state, once for
        every socket that asked for patches: (the seq it applies to, its text as UTF-8,
        its frame); None when there is no previous state or the whole state is as short.
        A frame of a room of this process brings its patch (`Frame.ops`); any other is
        diffed against the previous state frame (whose view is kept once decoded)."""
        previous = self._views.get(code)
        self._views[code] = (frame, None)
        if previous is None or previous[0].seq >= frame.seq:
            return None
        before, before_view = previous
        base = before.seq
        made = frame.ops is not None and base == frame.seq - 1  # by the room, from its event
        if made:
            ops = frame.ops
        else:
            view = _view(frame)
            self._views[code] = (frame, view)
            ops = diff(before_view if before_view is not None else _view(before), view)
        text = orjson.dumps({"type": "patch", "seq": frame.seq, "base": base, "ops": ops})
        if not made and len(text) >= len(frame.text):
            return None
        return base, text, text_frame(text)

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
            self._answer(target, payload)
            target.wire.uncork()
        elif target is not None and not target.done():
            target.set_result(payload)

    @staticmethod
    def _answer(conn: Connection, payload: bytes) -> None:
        if conn.awaiting:
            conn.awaiting -= 1
        conn.push(payload.decode())

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


def _view(frame: Frame) -> Any:
    """A state frame's view: its room's rendering, or its text decoded (another
    process's frame)."""
    view = frame.view
    return view if view is not None else orjson.loads(frame.text)["state"]
