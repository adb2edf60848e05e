"""A WebSocket's HTTP connection is freed when it upgrades, without the cyclic GC.

uvicorn breaks its HTTP protocol's cycle with its parser in `connection_lost`, which
never comes to a protocol that handed its connection to the socket protocol. Left to
the collector, every reconnecting phone's would wait for a full collection (hours
apart under load). Here: the real protocols (app/__main__.py's) under uvicorn in this
process, a real WebSocket client, the collector off, and a weak reference that must
die by reference counting alone.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import time
import weakref
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn

from app.api.http_protocol import PeerCounts, guarded_http_protocol
from app.api.socket_protocol import room_socket_protocol
from app.config import Settings
from app.main import create_app
from tests.client import Client
from tests.conftest import free_port


class Seen:
    """The HTTP protocols made: how many, and those still alive (weakly)."""

    def __init__(self) -> None:
        self.opened = 0
        self.alive: weakref.WeakSet[Any] = weakref.WeakSet()


@pytest.fixture
async def in_process(tmp_path: Path) -> AsyncIterator[tuple[str, Seen]]:
    """uvicorn serving the app in this loop with the protocols of `python -m app`;
    (its base URL, the HTTP protocols it made)."""
    settings = Settings(data_dir=tmp_path)
    app = create_app(settings)
    port = free_port()
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_config=None, lifespan="on")
    peers = PeerCounts(settings.connections_per_address, config.forwarded_allow_ips)
    made = Seen()
    guarded = guarded_http_protocol(peers, settings.request_seconds)

    class Recorded(guarded):  # type: ignore[misc, valid-type]
        def connection_made(self, transport: asyncio.Transport) -> None:
            made.alive.add(self)
            made.opened += 1
            super().connection_made(transport)

    config.http = Recorded
    config.ws = room_socket_protocol(app, peers)
    server = uvicorn.Server(config)
    serving = asyncio.create_task(server.serve())
    deadline = time.monotonic() + 10
    while not server.started:
        assert time.monotonic() < deadline and not serving.done(), "uvicorn did not start"
        await asyncio.sleep(0.01)
    try:
        yield f"http://127.0.0.1:{port}", made
    finally:
        server.should_exit = True
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.wait_for(serving, 10)


async def test_an_upgraded_connection_s_http_protocol_is_freed_without_the_collector(
    in_process: tuple[str, Seen],
) -> None:
    base, made = in_process
    async with httpx.AsyncClient() as http:
        code = (await http.post(f"{base}/api/rooms", json={"game": "bank"})).json()["code"]
    deadline = time.monotonic() + 5
    while len(made.alive):  # the request's connection closed: uvicorn's connection_lost freed it
        assert time.monotonic() < deadline, "the HTTP request's protocol was kept"
        await asyncio.sleep(0.01)
    gc.collect()
    gc.disable()
    try:
        sockets = [await Client.connect(base.replace("http", "ws", 1), code) for _ in range(3)]
        for client in sockets:
            await client.wait_for(lambda m: m["type"] == "welcome")
        # Each socket's HTTP protocol handed its connection over: none is left alive,
        # though the sockets are open and the collector has not run.
        deadline = time.monotonic() + 5
        while len(made.alive):
            assert time.monotonic() < deadline, f"{len(made.alive)} upgraded HTTP protocols kept"
            await asyncio.sleep(0.01)
        assert all(not client.closed.is_set() for client in sockets)
        assert made.opened == 4  # the request's connection, then the 3 sockets'
    finally:
        gc.enable()
