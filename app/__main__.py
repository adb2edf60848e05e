"""`python -m app --host H --port P`: serve bankit in one process."""

from __future__ import annotations

import argparse
import asyncio
import gc
import socket
from collections.abc import Callable
from types import FrameType

import uvicorn
from fastapi import FastAPI

from app.api.http_protocol import PeerCounts, guarded_http_protocol
from app.api.socket_protocol import room_socket_protocol
from app.config import Settings
from app.logs import configure
from app.main import create_app

TICK_SECONDS = 1.0  # uvicorn's main loop wakes every 0.1 s; its work is once a second


def _wake(tick: asyncio.Future[None]) -> None:
    if not tick.done():
        tick.set_result(None)


class DrainingServer(uvicorn.Server):
    """On SIGTERM, close sockets with 1001 (go elsewhere) before uvicorn's own 1012.

    Its main loop ticks once a second, not ten times (an idle server's wake-ups): the
    Date header it refreshes is to the second, and a signal wakes it at once."""

    def __init__(self, config: uvicorn.Config, app: FastAPI) -> None:
        super().__init__(config)
        self.app = app
        self._loop: asyncio.AbstractEventLoop | None = None
        self._tick: asyncio.Future[None] | None = None

    async def main_loop(self) -> None:
        loop = self._loop = asyncio.get_running_loop()
        counter = 0  # uvicorn's: a multiple of 10 refreshes the Date header
        should_exit = await self.on_tick(counter)
        while not should_exit:
            counter = (counter + 10) % 864000
            tick = self._tick = loop.create_future()
            timer = loop.call_later(TICK_SECONDS, _wake, tick)
            if self.should_exit:  # a signal came before this tick existed
                _wake(tick)
            await tick
            timer.cancel()
            should_exit = await self.on_tick(counter)

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        super().handle_exit(sig, frame)
        if self._loop is not None and self._tick is not None:
            self._loop.call_soon_threadsafe(_wake, self._tick)

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        services = getattr(self.app.state, "services", None)
        if services is not None:
            await services.hub.drain()
        await super().shutdown(sockets)


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m app", description=__doc__)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    args = parser.parse_args()

    settings = Settings()
    configure(settings.log_level, settings.log_format)
    gc.set_threshold(*settings.gc_thresholds)  # why these: app/config.py
    app = create_app(settings)
    config = uvicorn.Config(
        app,
        host=args.host,
        port=args.port,
        access_log=False,  # WebSocket query strings carry tokens: never log them
        log_config=None,  # uvicorn's loggers go through ours, which redacts tokens
        log_level=settings.log_level,
        ws_max_size=settings.max_frame_bytes,
        ws_ping_interval=settings.ws_ping_seconds,
        ws_per_message_deflate=settings.ws_compression,
        limit_concurrency=settings.max_open_connections,  # 503 beyond (docs/security.md)
        lifespan="on",
    )
    peers = PeerCounts(settings.connections_per_address, config.forwarded_allow_ips)
    config.http = guarded_http_protocol(peers, settings.request_seconds)  # slowloris
    config.ws = room_socket_protocol(app, peers)  # room sockets answered below ASGI
    server = DrainingServer(config, app)
    with asyncio.Runner(loop_factory=loop_factory()) as runner:
        runner.run(server.serve())


def loop_factory() -> Callable[[], asyncio.AbstractEventLoop] | None:
    """uvloop when it is installed (it comes with uvicorn[standard]): less CPU per send."""
    try:
        import uvloop
    except ImportError:
        return None
    return uvloop.new_event_loop


if __name__ == "__main__":
    main()
