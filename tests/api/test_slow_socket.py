"""A phone that stops reading never delays the rest of the room."""

from __future__ import annotations

import asyncio
import socket
import time
from collections.abc import Callable

from tests.client import Client, Table
from tests.conftest import ServerProcess

HANDSHAKE = (
    "GET /ws/rooms/{code} HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n"
    "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
    "Sec-WebSocket-Version: 13\r\n\r\n"
)


def deaf_socket(port: int, code: str) -> socket.socket:
    """A spectator that completes the handshake and then never reads a byte."""
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # fills after a few states
    sock.connect(("127.0.0.1", port))
    sock.sendall(HANDSHAKE.format(code=code).encode())
    return sock


async def test_a_reader_that_stalls_does_not_delay_the_others(
    fresh_server: Callable[..., ServerProcess],
) -> None:
    proc = fresh_server(BANKIT_RATE_PER_SECOND="100000", BANKIT_RATE_BURST="100000")
    table = Table(proc.base_url, rounds=100)
    for n in range(40):  # a big room: each state is several KB
        table.join(f"Long player name no {n:02d}")
    deaf = [deaf_socket(proc.port, table.code) for _ in range(3)]
    banker = await Client.connect(proc.ws_url, table.code, table.banker_token)
    watcher = await Client.connect(proc.ws_url, table.code)
    await banker.ok(type="start")
    state_size = len(table.state().__repr__())
    rolls = 10_000_000 // state_size  # 10 MB per deaf socket: past any socket buffer (tcp_wmem)

    started = time.monotonic()
    for n in range(rolls):
        if n % 100 == 99:  # wait now and then, as a person would, so acks do not pile up
            await banker.ok(type="roll", dice=[1, 2])
        else:
            await banker.send({"type": "roll", "dice": [1, 2]})
    last = await banker.ok(type="roll", dice=[1, 2])
    final = await watcher.state_at_least(last, timeout=30)
    elapsed = time.monotonic() - started

    assert final["roll_count"] == rolls + 1
    assert elapsed < 30
    # the watcher saw states in order, possibly skipping some, never going back
    seqs = [s["seq"] for s in watcher.states()]
    assert seqs == sorted(set(seqs))
    answer = await asyncio.wait_for(banker.command(type="ping"), 5)
    assert answer["type"] == "pong"
    for sock in deaf:
        sock.close()
