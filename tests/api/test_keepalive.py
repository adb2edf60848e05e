"""Keepalive pings (app/api/socket_protocol.py), over plain TCP sockets: a silent
socket is pinged every interval and stays open while it answers; a socket that keeps
sending messages has shown it is alive, and is not pinged."""

from __future__ import annotations

import json
import os
import select
import socket
import time
from collections.abc import Callable

from tests.api.test_one_write import open_socket
from tests.client import Table
from tests.conftest import ServerProcess

PING, PONG, CLOSE, TEXT = 0x89, 0x8A, 0x88, 0x81


def masked(opcode: int, payload: bytes) -> bytes:
    """One client frame (masked), `payload` under 126 bytes."""
    mask = os.urandom(4)
    body = bytes(b ^ mask[n % 4] for n, b in enumerate(payload))
    return bytes((opcode, 0x80 | len(payload))) + mask + body


class Reader:
    """The server's frames on a raw socket, whole, as (opcode, payload); pings answered."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock, self.buffer = sock, b""
        self.pings = 0
        self.opcodes: list[int] = []

    def read(self) -> None:
        chunk = self.sock.recv(65536)
        assert chunk, "the server closed the connection"
        self.buffer += chunk
        self._frames()

    def _frames(self) -> None:
        while len(self.buffer) >= 2:
            size, at = self.buffer[1] & 0x7F, 2
            if size == 126:
                if len(self.buffer) < 4:
                    return
                size, at = int.from_bytes(self.buffer[2:4], "big"), 4
            if len(self.buffer) < at + size:
                return
            opcode, payload = self.buffer[0], self.buffer[at : at + size]
            self.buffer = self.buffer[at + size :]
            self.opcodes.append(opcode)
            if opcode == PING:
                self.pings += 1
                assert len(payload) == 4, "uvicorn's ping: a 4-byte payload"
                self.sock.sendall(masked(PONG, payload))


def pump(readers: list[Reader], seconds: float, then: Callable[[], None] | None = None) -> None:
    """Read every socket until `seconds` pass; `then` runs after each wait (a message to send)."""
    deadline = time.monotonic() + seconds
    while (left := deadline - time.monotonic()) > 0:
        ready = select.select([r.sock for r in readers], [], [], min(left, 0.05))[0]
        for reader in readers:
            if reader.sock in ready:
                reader.read()
        if then is not None:
            then()


def test_a_silent_socket_is_pinged_each_interval_and_stays_open_while_it_answers(
    fresh_server: Callable[..., ServerProcess],
) -> None:
    proc = fresh_server(BANKIT_WS_PING_SECONDS="0.3")
    table = Table(proc.base_url)
    reader = Reader(open_socket(proc, f"/ws/rooms/{table.code}"))
    pump([reader], 2.0)
    assert reader.pings >= 3, "a ping every 0.3 s, each answered"
    assert CLOSE not in reader.opcodes
    assert TEXT in reader.opcodes, "its welcome"
    reader.sock.close()


def test_a_socket_that_keeps_talking_is_not_pinged(
    fresh_server: Callable[..., ServerProcess],
) -> None:
    proc = fresh_server(BANKIT_WS_PING_SECONDS="0.6", BANKIT_RATE_PER_SECOND="1000")
    table = Table(proc.base_url)
    silent = Reader(open_socket(proc, f"/ws/rooms/{table.code}"))
    talking = Reader(open_socket(proc, f"/ws/rooms/{table.code}"))
    last = [0.0]

    def talk() -> None:  # a `ping` message (the protocol's, not a control frame) every 0.1 s
        if time.monotonic() - last[0] >= 0.1:
            last[0] = time.monotonic()
            talking.sock.sendall(masked(TEXT, json.dumps({"type": "ping"}).encode()))

    talk()
    pump([talking, silent], 3.0, then=talk)
    # (one at most: a test client stalled past an interval on a loaded machine)
    assert talking.pings <= 1, "a socket that spoke since the last interval is alive"
    assert silent.pings >= 3, "the silent one beside it is pinged"
    assert CLOSE not in talking.opcodes + silent.opcodes
    talking.sock.close()
    silent.sock.close()
