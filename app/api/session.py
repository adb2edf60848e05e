"""One socket's life in a room: admit it, welcome it, take its messages, let it go.

Whatever carries the frames (a `Wire`) calls `receive` for each text message and
`disconnected` once; nothing here holds a task while the socket is idle. A command
for a room this process runs goes straight into the room's inbox; one that needs
I/O (Redis) is sent by a task, and the socket's later messages wait behind it, so
that a socket's commands keep their order.
"""

from __future__ import annotations

import contextlib
import logging
from typing import Any

from app.api.connection import (
    CLOSE_BAD_TOKEN,
    CLOSE_POLICY,
    CLOSE_TOO_BIG,
    CLOSE_TRY_LATER,
    CLOSE_UNKNOWN_ROOM,
    Connection,
    Wire,
)
from app.api.limits import Refused
from app.api.protocol import BadMessage, read_message
from app.api.services import Services
from app.bus.base import BusUnavailable
from app.games.seam import PLAYER, SPECTATOR, Sender
from app.rooms.envelope import CommandEnvelope, PresenceEnvelope
from app.rooms.outgoing import error_text, pong, welcome
from app.rooms.registry import UnknownRoom
from app.rooms.tokens import hash_token

log = logging.getLogger("bankit.session")

UNREACHABLE = "The game store is unreachable; retrying helps."
LOG_FULL = "This game's log is full: it takes no more moves. Start a new game."


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


class Session:
    __slots__ = (
        "_backlog",
        "_busy",
        "_counted",
        "_sharing",
        "_gone",
        "_opening",
        "_present",
        "address",
        "code",
        "collection",
        "conn",
        "services",
        "token",
        "wire",
    )

    def __init__(
        self,
        services: Services,
        wire: Wire,
        collection: str,
        code: str,
        token: str | None,
        address: str | None,
    ) -> None:
        """`address`: the client's, as app/api/limits.py counts it (None: not limited)."""
        self.services = services
        self.address = address
        self.wire = wire
        self.collection = collection
        self.code = code.upper()
        self.token = token
        self.conn: Connection | None = None
        self._backlog: list[str | None] = []  # what came while opening or busy
        self._opening = True
        self._busy = False  # a command is on its way through I/O
        self._gone = False
        self._present = False  # its presence +1 was sent (a -1 follows when it goes)
        self._counted: bool | None = None  # counted in the limits (as a spectator: True)
        self._sharing = False  # its shares across processes are being taken

    # -- opening -------------------------------------------------------------------------
    def start(self) -> None:
        self.services.hub.spawn(self.open(), f"open-{self.code}")

    async def open(self) -> None:
        """Admit and welcome the socket; then what it sent meanwhile is read, in order."""
        try:
            await self._open()
        except Exception:  # a bug must close this socket, not leave it half-open
            log.exception("room %s: a socket failed to open", self.code)
            self.wire.close(CLOSE_TRY_LATER)
        self._opening = False
        if self._gone:  # it went while this ran: `disconnected` left the rest to us
            await self._leave()
            return
        self._read_backlog()

    async def _open(self) -> None:
        services, hub = self.services, self.services.hub
        if not self._admitted_by_limits() or not await self._admitted_across_processes():
            return
        identity = await self._admit()
        if identity is None or self._gone:
            return
        settings = services.settings
        own = self.token if identity.role != SPECTATOR else None  # the room's own token
        conn = Connection(
            self.wire,
            self.code,
            identity,
            queue_limit=settings.send_queue,
            rate=settings.rate_per_second,
            burst=settings.rate_burst,
            th=hash_token(own) if own else None,
        )
        try:
            await hub.add(conn)
        except BusUnavailable:
            self.wire.close(CLOSE_TRY_LATER, UNREACHABLE)
            return
        self.conn = conn
        try:
            await self._welcome(conn)
            await self._presence(conn, +1)
            self._present = identity.role != SPECTATOR
        except (BusUnavailable, UnknownRoom):
            conn.close(CLOSE_TRY_LATER)

    def _admitted_by_limits(self) -> bool:
        """This address's share (app/api/limits.py), counted before any await so that
        sockets opening together cannot all pass; a socket without a token is a
        spectator, and it names a room code as a guesser would."""
        limits, spectator = self.services.limits, not self.token
        try:
            if spectator:
                limits.check_lookup(self.address)
        except Refused as refused:
            self.wire.close(CLOSE_TRY_LATER, refused.message)
            return False
        refusal = limits.open_socket(self.address, self.code, spectator)
        if refusal is not None:
            self.wire.close(CLOSE_TRY_LATER, refusal)
            return False
        self._counted = spectator
        return True

    async def _admitted_across_processes(self) -> bool:
        """The same shares counted by every process sharing Redis (app/api/limits.py)."""
        limits, spectator = self.services.limits, bool(self._counted)
        self._sharing = True  # `disconnected` meanwhile leaves these shares to us
        try:
            refusal = await limits.share_socket(self.address, self.code, spectator)
        except BusUnavailable:
            refusal = UNREACHABLE
        finally:
            self._sharing = False
        if refusal is None:
            if self._gone:  # closed meanwhile
                limits.unshare_socket(self.address, self.code, spectator)
            return True
        if self._counted is not None:  # not given back by `disconnected` yet
            limits.close_socket(self.address, self.code, spectator, shared=False)
            self._counted = None
        self.wire.close(CLOSE_TRY_LATER, refusal)
        return False

    async def _admit(self) -> Sender | None:
        """Who this socket is in the room, or None once it is closed with the reason."""
        registry, wire = self.services.registry, self.wire
        try:
            snapshot = await registry.snapshot(self.code)
        except BusUnavailable:
            wire.close(CLOSE_TRY_LATER, UNREACHABLE)
            return None
        game = self.services.games.get(snapshot["game"]) if snapshot is not None else None
        if snapshot is None or game is None or game.collection != self.collection:
            self.services.limits.missed(self.address)
            wire.close(CLOSE_UNKNOWN_ROOM, "No such room.")
            return None
        identity = identify(snapshot, self.token)
        if identity is None and snapshot.get("parent"):  # a token its parent gave out later
            with contextlib.suppress(BusUnavailable):
                parent = await registry.snapshot(snapshot["parent"])
                identity = Sender(SPECTATOR) if parent and identify(parent, self.token) else None
        if identity is None:
            wire.close(CLOSE_BAD_TOKEN, "This token does not belong to this room.")
        return identity

    async def _welcome(self, conn: Connection) -> None:
        """Read the state after subscribing, so that no later state can be missed."""
        snapshot = await self.services.registry.snapshot(conn.code)
        if snapshot is None:
            raise UnknownRoom(conn.code)
        conn.last_seq = snapshot["seq"]
        conn.start(welcome(conn.identity.role, conn.identity.player_id, snapshot["state"]))
        self.services.hub.welcomed(conn)

    async def _presence(self, conn: Connection, delta: int) -> None:
        """A player's presence, or the host's (by its role: "banker", "organiser")."""
        if conn.identity.role != SPECTATOR:
            envelope = PresenceEnvelope(self.services.bus.node_id, conn.identity.by, delta)
            await self.services.registry.submit(conn.code, envelope)

    # -- messages ------------------------------------------------------------------------
    def receive(self, text: str | None) -> None:
        """One message from the socket (None: a binary one)."""
        if self._gone:
            return
        if self._opening or self._busy:
            settings = self.services.settings
            if len(self._backlog) > settings.rate_burst + settings.flood_limit:
                self.wire.close(CLOSE_POLICY)
                return
            self._backlog.append(text)
            return
        self._take(text)

    def _read_backlog(self) -> None:
        while self._backlog and not (self._opening or self._busy or self._gone):
            self._take(self._backlog.pop(0))

    def _take(self, text: str | None) -> None:
        conn, settings = self.conn, self.services.settings
        if conn is None or conn.closing:
            return
        if not conn.bucket.take():
            conn.refused_in_a_row += 1
            if conn.refused_in_a_row > settings.flood_limit:
                conn.close(CLOSE_POLICY, flush=True)
                return
            conn.push(error_text("rate_limited", "Too many messages: slow down."))
            return
        conn.refused_in_a_row = 0
        if text is None:
            conn.push(error_text("bad_message", "Binary frames are not accepted: send JSON text."))
            return
        size, most = len(text), settings.max_frame_bytes
        if size > most or (size * 4 > most and len(text.encode()) > most):  # ≤ 4 bytes a char
            conn.close(CLOSE_TOO_BIG)
            return
        try:
            message = read_message(text)
        except BadMessage as bad:
            conn.push(error_text("bad_message", bad.message, bad.command_id))
            return
        if message.type == "ping":
            conn.push(pong(message.id))
            return
        if message.type == "sync" and conn.patches:  # its patches went wrong: a whole state
            self.services.hub.sync(conn)
            return
        if conn.last_seq >= settings.max_log_events:  # the room's log has its bound
            conn.push(error_text("log_full", LOG_FULL, message.id))
            return
        identity = conn.identity  # spectators too: the room answers in the protocol's order
        envelope = CommandEnvelope(
            role=identity.role,
            pid=identity.player_id,
            id=message.id,
            cmd=text,
            node=self.services.bus.node_id,
            key=conn.key,
            auth=conn.th,
        )
        hub = self.services.hub
        if hub.pending.tracking:  # a shared backplane: answered once, whatever fails
            envelope = hub.pending.track(conn.code, envelope)
        conn.awaiting += 1  # its answer may come with the state it makes (app/api/hub.py)
        try:
            if self.services.registry.submit_nowait(conn.code, envelope):
                return
        except UnknownRoom:
            hub.pending.drop(envelope.key)
            conn.close(CLOSE_TRY_LATER)
            return
        self._busy = True
        hub.spawn(self._submit(conn, envelope), f"submit-{conn.code}")

    async def _submit(self, conn: Connection, envelope: CommandEnvelope) -> None:
        try:
            await self.services.registry.submit(conn.code, envelope)
        except BusUnavailable:
            self.services.hub.pending.drop(envelope.key)
            conn.awaiting = max(0, conn.awaiting - 1)  # answered here, not by the room
            message = "The room cannot take commands now; retry."
            conn.push(error_text("unavailable", message, envelope.id))
        except UnknownRoom:
            self.services.hub.pending.drop(envelope.key)
            conn.close(CLOSE_TRY_LATER)
        finally:
            self._busy = False
        self._read_backlog()

    # -- closing ---------------------------------------------------------------------------
    def disconnected(self) -> None:
        """The socket is gone, or closing: once, whatever says so first."""
        if self._gone:
            return
        self._gone = True
        self._backlog.clear()
        if self._counted is not None:
            limits = self.services.limits
            limits.close_socket(self.address, self.code, self._counted, not self._sharing)
            self._counted = None
        if self.conn is not None:
            self.conn.closed()
        if not self._opening:
            self.services.hub.spawn(self._leave(), f"leave-{self.code}")

    async def _leave(self) -> None:
        conn = self.conn
        if conn is None:
            return
        self.conn = None
        await self.services.hub.remove(conn)
        if self._present:
            self._present = False
            with contextlib.suppress(BusUnavailable, UnknownRoom):
                await self._presence(conn, -1)
