"""Frame once, write many: a state's WebSocket frame is built once for every socket.

A server's frames are not masked, so the bytes of one text frame are the same for
every connection: the hub builds a state's frame once and the lean socket protocol
(app/api/socket_protocol.py) writes those bytes to each transport.
"""

from __future__ import annotations


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
