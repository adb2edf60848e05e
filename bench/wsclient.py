"""A lean WebSocket client for the load generator: an asyncio Protocol, no library.

Thousands of these share one core with the room logic of bench/load.py, so each
frame costs a few microseconds: server frames are parsed by hand, client frames are
masked with a zero key (allowed: the key only has to be present), and a state's
`seq` is read off the end of its text (`..."seq":17}}`) without parsing the JSON.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

REQUEST = (
    "GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
    "Connection: Upgrade\r\nSec-WebSocket-Key: YmFua2l0LWxvYWQtZ2VuZQ==\r\n"
    "Sec-WebSocket-Version: 13\r\n\r\n"
)


def tail_seq(payload: bytes) -> int:
    """The last `"seq":N` of a message: a state's own seq (it is the view's last key)."""
    at = payload.rfind(b'"seq":') + 6
    return int(payload[at : payload.index(b"}", at)])


def text_frame(payload: bytes) -> bytes:
    size = len(payload)
    if size < 126:
        head = bytes((0x81, 0x80 | size))
    elif size < 65536:
        head = bytes((0x81, 0x80 | 126)) + size.to_bytes(2, "big")
    else:
        head = bytes((0x81, 0x80 | 127)) + size.to_bytes(8, "big")
    return head + b"\x00\x00\x00\x00" + payload


class WsClient(asyncio.Protocol):
    """Calls `on_text(payload)` for every text frame; `lost` is set when it closes."""

    def __init__(self, path: str, port: int, on_text: Callable[[bytes], None]) -> None:
        self.request = REQUEST.format(path=path, port=port).encode()
        self.on_text = on_text
        self.buffer = bytearray()
        self.open: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.lost = False
        self.close_code: int | None = None
        self.transport: asyncio.Transport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]
        transport.write(self.request)  # type: ignore[attr-defined]

    def connection_lost(self, exc: Exception | None) -> None:
        self.lost = True
        if not self.open.done():
            self.open.set_exception(ConnectionError("closed during the handshake"))

    def send(self, payload: bytes) -> None:
        if self.transport is not None and not self.lost:
            self.transport.write(text_frame(payload))

    def close(self) -> None:
        if self.transport is not None:
            self.transport.close()

    def data_received(self, data: bytes) -> None:
        buffer = self.buffer
        buffer += data
        if not self.open.done():
            end = buffer.find(b"\r\n\r\n")
            if end < 0:
                return
            if b" 101 " not in buffer[: buffer.find(b"\r\n")]:
                self.open.set_exception(ConnectionError(bytes(buffer[:end]).decode()))
                return
            del buffer[: end + 4]
            self.open.set_result(None)
        while len(buffer) >= 2:
            size, start = buffer[1] & 0x7F, 2
            if size == 126:
                if len(buffer) < 4:
                    return
                size, start = int.from_bytes(buffer[2:4], "big"), 4
            elif size == 127:
                if len(buffer) < 10:
                    return
                size, start = int.from_bytes(buffer[2:10], "big"), 10
            end = start + size
            if len(buffer) < end:
                return
            opcode = buffer[0] & 0x0F
            payload = bytes(buffer[start:end])
            del buffer[:end]
            if opcode == 1:
                self.on_text(payload)
            elif opcode == 9 and self.transport is not None:  # ping: answer pong
                self.transport.write(bytes((0x8A, 0x80 | len(payload))) + b"\x00" * 4 + payload)
            elif opcode == 8:
                self.close_code = int.from_bytes(payload[:2], "big") if size >= 2 else 1005
                self.close()
