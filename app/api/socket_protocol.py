"""The room sockets below ASGI: uvicorn's sans-I/O WebSocket protocol, driven directly.

Through ASGI every socket holds a task for its whole life (the app's coroutine
stack: middleware, router, endpoint, a `receive` waiting on a queue) and every
message crosses that queue, Starlette and the endpoint before the room sees it.
Here `/ws/{collection}/{code}` is answered in the protocol itself: the handshake is
accepted at once, the session (app/api/session.py) is told about each message as it
is parsed (`data_received`), and frames are written straight to the transport (a
state's frame bytes built once for all its sockets). An idle socket is this object,
its websockets parser, its session and its connection: no task, no queue.

Every other path, and every socket before the app has started, goes to the ASGI app
as uvicorn would send it (`room_socket_protocol(app)` binds the protocol to the app).
"""

from __future__ import annotations

import asyncio
import random
import re
from typing import Any, ClassVar
from urllib.parse import parse_qsl, unquote

from uvicorn.middleware.proxy_headers import _TrustedHosts
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.http11 import Request, Response
from websockets.protocol import Protocol, State
from websockets.streams import StreamReader

try:  # websockets' C unmasking, as its own parser uses it
    from websockets.speedups import apply_mask
except ImportError:  # a build without its C extension
    from websockets.utils import apply_mask

from app.api.framing import text_frame
from app.api.http_protocol import PeerCounts
from app.api.services import Services
from app.api.session import Session
from app.api.site import origin_allowed

ROOM_PATH = re.compile(r"/ws/([a-z]+)/([A-Za-z0-9]{1,32})")
FIN_TEXT = 0x81  # a whole message in one frame, text, no extension bits (RFC 6455 §5.2)
MASKED = 0x80  # every client frame is masked
FIN_PONG = 0x8A  # a pong (control frames are never fragmented)
PING_HEAD = bytes((0x89, 4))  # an unmasked ping with our 4-byte payload
OPEN = State.OPEN
# websockets' parser waits here, and only here, between two frames (Protocol.parse).
BETWEEN_FRAMES = StreamReader.at_eof.__code__


def between_frames(conn: Protocol) -> bool:
    """Whether websockets' parser holds no part of a frame: what comes next starts one.
    (Its buffer may be empty in the middle of a frame too: after the header, say.)"""
    waiting = conn.parser.gi_yieldfrom  # type: ignore[attr-defined]
    return waiting is not None and waiting.gi_code is BETWEEN_FRAMES


class _NoApp:
    """Stands in for the ASGI receive queue of a socket that has no ASGI app."""

    __slots__ = ()

    def put_nowait(self, message: Any) -> None:
        """uvicorn tells the app about disconnects this way; the session hears them itself."""

    def empty(self) -> bool:
        return True


NO_APP = _NoApp()


class _Flag:
    """`writable` without an asyncio.Event's waiter deque: nothing here awaits it."""

    __slots__ = ("on",)

    def __init__(self) -> None:
        self.on = True

    def set(self) -> None:
        self.on = True

    def clear(self) -> None:
        self.on = False

    def is_set(self) -> bool:
        return self.on


class RoomSocketProtocol(WebSocketsSansIOProtocol):
    target: ClassVar[Any] = None  # the FastAPI app, set by `room_socket_protocol`
    proxies: ClassVar[_TrustedHosts | None] = None  # FORWARDED_ALLOW_IPS, read once
    peers: ClassVar[PeerCounts | None] = None  # open connections per address (__main__)
    session: Session | None = None
    patches = False  # the client asked for states as patches (docs/protocol.md)
    _peer: str | None = None
    _corked: list[bytes] | None = None  # frames held until `uncork` (one write for all)
    # Open, writable, without an extension: a frame built once is written as it is.
    # Whatever else closes the socket (uvicorn's own closes, a close frame received, a
    # parser error) closes the transport at once, which `write` checks as well.
    _plain = False
    out: asyncio.Transport | None = None  # the transport while plain and not corked (`Wire`)
    _heard = False  # a message came since the last keepalive ping: the peer is alive

    def connection_made(self, transport: Any) -> None:
        """Counted as the HTTP connection it was (app/api/http_protocol.py)."""
        super().connection_made(transport)
        if self.peers is not None:
            self._peer = self.peers.key(self.client)
            self.peers.add(self._peer, +1)

    # -- the handshake -------------------------------------------------------------------
    def handle_connect(self, event: Request) -> None:
        services: Services | None = getattr(self.target.state, "services", None)
        path, _, query = event.path.partition("?")
        route = ROOM_PATH.fullmatch(unquote(path))
        if services is None or route is None:
            super().handle_connect(event)  # the ASGI app answers (a 404, or its route)
            return
        self.handshake_initiated = True
        origin, host = event.headers.get("Origin"), event.headers.get("Host")
        if origin_allowed(origin, host, services.settings):
            response = self.conn.accept(event)
        else:
            response = self.conn.reject(403, "This site's pages only.\n")
        if response.status_code != 101:  # refused, or not a valid upgrade (websockets' 4xx)
            self._refuse(response)
            return
        del response.headers["Date"]
        response.headers.update(
            (name.decode("latin-1"), value.decode("latin-1"))
            for name, value in self.default_headers
        )
        self.queue = NO_APP  # type: ignore[assignment]
        self.writable = _Flag()  # type: ignore[assignment]
        self.handshake_complete = True
        self.conn.send_response(response)
        self.transport.write(b"".join(self.conn.data_to_send()))
        if not self.conn.reader.buffer:  # (a client sends no frame before the 101: RFC 6455)
            # websockets' handshake parser keeps the request (its headers) for the
            # socket's life in its frame; the frame parser alone reads the rest.
            self.conn.parser = Protocol.parse(self.conn)
            next(self.conn.parser)
        self._set_plain(not self.conn.extensions)
        self.start_keepalive()
        params = dict(parse_qsl(query, keep_blank_values=True))
        self.patches = params.get("patches") == "1"
        address = services.limits.key(self._client_host(event))
        self.session = Session(services, self, route[1], route[2], params.get("token"), address)
        self.session.start()

    def _refuse(self, response: Response) -> None:
        self.handshake_complete = self.close_sent = True
        self.conn.send_response(response)
        self.transport.write(b"".join(self.conn.data_to_send()))
        self.transport.close()

    def _client_host(self, event: Request) -> str | None:
        """The peer, or the client a trusted proxy names (as uvicorn's proxy middleware
        decides it for HTTP, which these sockets do not pass through)."""
        peer = self.client[0] if self.client else None
        forwarded = event.headers.get_all("X-Forwarded-For")
        if not (self.config.proxy_headers and forwarded):
            return peer
        cls = type(self)
        if cls.proxies is None:
            cls.proxies = _TrustedHosts(self.config.forwarded_allow_ips)
        if peer not in cls.proxies:
            return peer
        host, _ = cls.proxies.get_trusted_client_address(", ".join(forwarded))
        return host or peer

    # -- messages in -----------------------------------------------------------------------
    def data_received(self, data: bytes) -> None:
        """A phone's command is one short frame in one read: read here at once. Anything
        else (longer, split, several, control frames) goes through websockets' parser."""
        session, conn, size = self.session, self.conn, len(data)
        if (
            session is not None
            and size > 6
            and data[0] == FIN_TEXT
            and (data[1] ^ MASKED) == size - 6 < 126  # masked, and exactly this frame
            and conn.current_size is None
            and between_frames(conn)
            and conn.state is OPEN
            and not conn.extensions
            and not self.close_sent
        ):
            try:
                text = apply_mask(data[6:], data[2:6]).decode()
            except UnicodeDecodeError:
                pass  # websockets closes the socket with 1007, as for any invalid text
            else:
                self._heard = True
                session.receive(text)
                return
        elif (
            size == 10
            and data[0] == FIN_PONG
            and data[1] == MASKED | 4  # the answer to our keepalive ping, alone
            and session is not None
            and conn.state is OPEN
            and not conn.extensions
            and between_frames(conn)
        ):
            self._ponged(apply_mask(data[6:], data[2:6]))
            return
        super().data_received(data)

    def send_receive_event_to_app(self) -> None:
        session = self.session
        if session is None:
            super().send_receive_event_to_app()
            return
        data = self.frames[0] if len(self.frames) == 1 else b"".join(self.frames)
        self.frames = []
        if self.close_sent:
            return
        self._heard = True
        if self.curr_msg_data_type != "text":
            session.receive(None)
            return
        try:
            text = data.decode()
        except UnicodeDecodeError:
            self.conn.send_close(1007, "Text frames must be valid UTF-8.")
            self.handle_parser_exception()
            return
        session.receive(text)

    # -- keepalive: the ping and its pong without websockets' frame objects ------------------
    def send_keepalive_ping(self) -> None:
        """uvicorn's ping (its payload, its timers), framed here: the same bytes; none
        when the peer sent a message since the last one (it was alive then: a socket
        that goes silent is pinged at the next interval, and dropped a timeout later)."""
        if self.conn.extensions or self.session is None:
            super().send_keepalive_ping()
            return
        self.ping_timer = None
        if self.close_sent or self.transport.is_closing() or self.conn.state is not OPEN:
            return
        if self._heard:
            self._heard = False
            self.schedule_ping()
            return
        self.pending_ping_payload = payload = random.getrandbits(32).to_bytes(4, "big")
        self.ping_sent_at = self.loop.time()
        self.transport.write(PING_HEAD + payload)
        if self.ping_timeout is not None:
            self.pong_timer = self.loop.call_later(self.ping_timeout, self.keepalive_timeout)
        else:
            self.schedule_ping()

    def _ponged(self, payload: bytes) -> None:
        """uvicorn's `handle_pong`: the pong of the ping in flight chains the next ping."""
        if self.pending_ping_payload is None or payload != self.pending_ping_payload:
            return  # unsolicited, or stale
        self.last_ping_rtt = self.loop.time() - self.ping_sent_at
        self.pending_ping_payload = None
        if self.pong_timer is not None:
            self.pong_timer.cancel()
            self.pong_timer = None
            self.schedule_ping()

    def connection_lost(self, exc: Exception | None) -> None:
        """Tell the session, then break the reference cycles (this protocol and its
        session; websockets' parser and its generator) so that the socket is freed now,
        by reference counting: left to the cyclic GC, thousands of closed sockets pile
        up between full collections, which then stall the loop (bench.soak)."""
        self._set_plain(False)
        super().connection_lost(exc)
        if self.peers is not None:
            self.peers.add(self._peer, -1)
            self._peer = None
        session, self.session = self.session, None
        if session is not None:
            session.disconnected()
        self.conn.parser.close()

    # -- frames out: the session's `Wire` ------------------------------------------------------
    def _open(self) -> bool:
        return not (
            self.close_sent
            or self.disconnected
            or self.transport.is_closing()
            or self.conn.state is not State.OPEN
        )

    def write(self, text: str, frame: bytes | None) -> bool:
        if self._plain and not self.transport.is_closing():
            if frame is None:  # a message of this socket's own (an ack, a pong)
                frame = text_frame(text.encode())
            if self._corked is None:
                self.transport.write(frame)
            else:
                self._corked.append(frame)
            return True
        if not self._open():
            return True  # dropped: the socket is going
        if not self.writable.is_set():
            return False  # the phone is not reading: `resume_writing` flushes
        if self.conn.extensions:  # permessage-deflate: websockets compresses each frame
            self.conn.send_text(text.encode())
            data = b"".join(self.conn.data_to_send())
        else:
            data = frame if frame is not None else text_frame(text.encode())
        if self._corked is None:
            self.transport.write(data)
        else:
            self._corked.append(data)
        return True

    def cork(self) -> None:
        if self._corked is None:
            self._corked = []
            self._set_plain(self._plain)  # no `out`: the hub writes through `write`, which holds it

    def uncork(self) -> None:
        held, self._corked = self._corked, None
        self._set_plain(self._plain)
        if held and self._open():
            self.transport.write(held[0] if len(held) == 1 else b"".join(held))

    def _set_plain(self, plain: bool) -> None:
        """Whether a frame built once goes to the transport as it is (`_plain`), and
        straight from the hub when nothing is held (`out`)."""
        self._plain = plain
        self.out = self.transport if plain and self._corked is None else None

    def close(self, code: int, reason: str = "") -> None:
        self.uncork()  # what was written before the close goes first
        self._set_plain(False)
        if self._open():
            self.conn.send_close(code, reason)
            self.transport.write(b"".join(self.conn.data_to_send()))
            self.close_sent = True
            self.close_timer = self.loop.call_later(self.close_timeout, self.transport.close)
        if self.session is not None:
            self.session.disconnected()

    def pause_writing(self) -> None:
        self._set_plain(False)
        super().pause_writing()

    def resume_writing(self) -> None:
        super().resume_writing()
        self._set_plain(self._open() and not self.conn.extensions and self.session is not None)
        conn = self.session.conn if self.session is not None else None
        if conn is not None:
            conn.flush()


def room_socket_protocol(app: Any, peers: PeerCounts | None = None) -> type[RoomSocketProtocol]:
    """The protocol class for uvicorn's `ws` setting, answering `app`'s room sockets."""
    return type("RoomSocketProtocol", (RoomSocketProtocol,), {"target": app, "peers": peers})
