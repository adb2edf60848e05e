"""Over a plain TCP socket, so that what arrives together is seen together:

- a command's state and its ack reach the sender in one write (one `send` of the
  server, so one read of the phone), the state first, as two frames; every other
  socket of the room gets the state alone;
- a phone's short command in one read is read at once (app/api/socket_protocol.py),
  and whatever is not that (a frame split over two reads, two frames in one, text
  that is not UTF-8) is still read, or refused, as websockets' own parser does."""

from __future__ import annotations

import base64
import json
import os
import select
import socket
import time
from typing import Any

from tests.client import Table
from tests.conftest import ServerProcess


def open_socket(server: ServerProcess, path: str) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", server.port), timeout=5)
    key = base64.b64encode(os.urandom(16)).decode()
    request = (
        f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\nUpgrade: websocket\r\n"
        f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
    )
    sock.sendall(request.encode())
    head = b""
    while b"\r\n\r\n" not in head:
        head += sock.recv(1)
    assert head.startswith(b"HTTP/1.1 101"), head
    return sock


def frames(data: bytes) -> list[dict[str, Any]]:
    """The text messages in `data` (whole unmasked frames from the server)."""
    found, at = [], 0
    while at < len(data):
        assert data[at] == 0x81, "one whole text frame after another"
        size, at = data[at + 1] & 0x7F, at + 2
        if size == 126:
            size, at = int.from_bytes(data[at : at + 2], "big"), at + 2
        found.append(json.loads(data[at : at + size]))
        at += size
    assert at == len(data), "no frame split across reads"
    return found


def read_all(sock: socket.socket, quiet: float = 0.3) -> list[bytes]:
    """Every chunk one `recv` gets, until nothing comes for `quiet` seconds or the
    server closes the connection."""
    chunks = []
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and select.select([sock], [], [], quiet)[0]:
        chunk = sock.recv(65536)
        if not chunk:
            break
        chunks.append(chunk)
    return chunks


def frame(payload: bytes) -> bytes:
    """One masked text frame, as a client writes it."""
    assert len(payload) < 126
    mask = os.urandom(4)
    masked = bytes(b ^ mask[n % 4] for n, b in enumerate(payload))
    return bytes((0x81, 0x80 | len(payload))) + mask + masked


def send(sock: socket.socket, message: dict[str, Any]) -> None:
    sock.sendall(frame(json.dumps(message).encode()))


def seated_banker(server: ServerProcess) -> socket.socket:
    table = Table(server.base_url)
    table.join("Ann")
    banker = open_socket(server, f"/ws/rooms/{table.code}?token={table.banker_token}")
    send(banker, {"type": "start", "id": "s"})
    read_all(banker)
    return banker


def test_the_senders_state_and_ack_come_in_one_read(server: ServerProcess) -> None:
    table = Table(server.base_url)
    table.join("Ann")
    for patches in ("", "&patches=1"):
        banker = open_socket(server, f"/ws/rooms/{table.code}?token={table.banker_token}{patches}")
        watcher = open_socket(server, f"/ws/rooms/{table.code}?{patches[1:]}")
        read_all(banker), read_all(watcher)  # the welcomes and presence
        # the start; then a roll, after which a patch socket has a state to patch from
        send(
            banker,
            {"type": "start", "id": "s"} if not patches else {"type": "roll", "dice": [1, 2]},
        )
        read_all(banker), read_all(watcher)
        send(banker, {"type": "roll", "dice": [2, 3], "id": f"r{patches}"})
        chunks = read_all(banker)
        assert len(chunks) == 1, "one write for the state and its ack"
        state, ack = frames(chunks[0])
        assert state["type"] == ("patch" if patches else "state")
        assert ack == {"type": "ack", "id": f"r{patches}", "seq": ack["seq"]}
        assert (state.get("seq") or state["state"]["seq"]) == ack["seq"]
        (seen,) = [m for chunk in read_all(watcher) for m in frames(chunk)]
        assert seen["type"] == state["type"], "the watcher's socket gets the state alone"
        banker.close()
        watcher.close()


def acks(sock: socket.socket) -> list[str]:
    return [m["id"] for chunk in read_all(sock) for m in frames(chunk) if m["type"] == "ack"]


def test_a_frame_split_over_two_reads_and_two_frames_in_one_are_read_too(
    server: ServerProcess,
) -> None:
    banker = seated_banker(server)
    split = frame(b'{"type":"roll","dice":[2,3],"id":"split"}')
    banker.sendall(split[:5])
    assert not select.select([banker], [], [], 0.2)[0], "half a frame: nothing to answer"
    banker.sendall(split[5:])
    assert acks(banker) == ["split"]
    two = [frame(b'{"type":"roll","dice":[%d,3],"id":"r%d"}' % (n, n)) for n in (1, 2)]
    banker.sendall(b"".join(two))
    assert acks(banker) == ["r1", "r2"]
    banker.close()


def test_a_short_frame_that_is_not_utf8_closes_the_socket_with_1007(
    server: ServerProcess,
) -> None:
    banker = seated_banker(server)
    banker.sendall(frame(b'{"type":"roll","id":"\xff\xfe"}'))
    data = b"".join(read_all(banker))
    close = data[data.index(b"\x88") :]  # the close frame: its code leads its payload
    assert int.from_bytes(close[2:4], "big") == 1007
    banker.close()


def test_a_frame_whose_rest_looks_like_a_whole_frame_is_still_read_as_one(
    server: ServerProcess,
) -> None:
    """After a frame's first two bytes, websockets' parser holds nothing in its buffer,
    yet it is inside a frame: the rest is not a frame of its own, whatever it looks like."""
    banker = seated_banker(server)
    payload = b'{"type":"roll","dice":[2,3],"id":"tail"}'
    # a mask whose first two bytes read as the header of a frame of the rest's length
    mask = bytes((0x81, 0x80 | (len(payload) - 2), 7, 9))
    masked = bytes(b ^ mask[n % 4] for n, b in enumerate(payload))
    whole = bytes((0x81, 0x80 | len(payload))) + mask + masked
    banker.sendall(whole[:2])
    assert not select.select([banker], [], [], 0.2)[0], "a header alone: nothing to answer"
    banker.sendall(whole[2:])
    assert acks(banker) == ["tail"]
    banker.close()
