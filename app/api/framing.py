"""Frame once, write many: a state's WebSocket frame is built once for every socket.

A server's frames are not masked, so the bytes of one text frame are the same for
every connection. uvicorn's default protocol frames each send again and reaches the
socket through Starlette, uvicorn and websockets layers; that path was most of the
server's CPU per state (docs/performance.md). `FramingWebSocketProtocol` is that
same protocol plus one ASGI extension, `bankit.frames`: a function that writes
ready frame bytes to the transport at once, or says no (closing, or the peer is
not reading: then the caller queues, and the newest state wins).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.protocol import State

EXTENSION = "bankit.frames"
WriteFrame = Callable[[bytes], bool]


def text_frame(payload: bytes) -> bytes:
    """One final, unmasked text frame (RFC 6455 §5.2) carrying `payload` (UTF-8)."""
    size = len(payload)
    if size < 126:
        header = bytes((0x81, size))
    elif size < 1 << 16:
        header = bytes((0x81, 126)) + size.to_bytes(2, "big")
    else:
        header = bytes((0x81, 127)) + size.to_bytes(8, "big")
    return header + payload


def frame_writer(scope: Any) -> WriteFrame | None:
    """The socket's direct writer, when the server offers one (`python -m app` does)."""
    extension = scope.get("extensions", {}).get(EXTENSION)
    return None if extension is None else extension["write"]


class FramingWebSocketProtocol(WebSocketsSansIOProtocol):
    def handle_connect(self, event: Any) -> None:
        super().handle_connect(event)
        if not self.close_sent and not self.conn.extensions:  # no compression negotiated
            self.scope["extensions"][EXTENSION] = {"write": self.write_frame}

    def write_frame(self, frame: bytes) -> bool:
        """Write now if the socket is open and draining; False means: queue it."""
        if (
            not self.handshake_complete
            or self.close_sent
            or self.disconnected
            or not self.writable.is_set()
            or self.conn.state is not State.OPEN
            or self.transport.is_closing()
        ):
            return False
        self.transport.write(frame)
        return True
