"""The HTTP connections of `python -m app`: a deadline for each request, and a share of
the server's connections per address (docs/security.md).

uvicorn closes a connection idle between requests (keep-alive), but not one that
sends its request a byte at a time (slowloris): here a request's headers and body must
all arrive within `BANKIT_REQUEST_SECONDS` of its first byte (of the connection, for the
first request), or the connection is closed. A WebSocket's handshake is such a
request, so a half-sent handshake is closed too. And one address (its peer; a proxy
uvicorn trusts is not counted) holds at most `BANKIT_CONNECTIONS_PER_ADDRESS` open
connections: more are closed at once, before a byte is read.
"""

from __future__ import annotations

import asyncio
from typing import Any, ClassVar

from uvicorn.middleware.proxy_headers import _TrustedHosts
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from app.api.limits import Counts, client_key


class PeerCounts:
    """Open TCP connections per peer address, across the HTTP and socket protocols."""

    def __init__(self, per_address: int, proxies: str | list[str]) -> None:
        self.per_address = per_address
        self.proxies = _TrustedHosts(proxies)
        self.counts = Counts()

    def key(self, client: tuple[str, int] | None) -> str | None:
        """The address to count, or None for a trusted proxy (its clients vary)."""
        host = client[0] if client else None
        return None if host in self.proxies else client_key(host)

    def full(self, key: str | None) -> bool:
        return key is not None and self.counts[key] >= self.per_address

    def add(self, key: str | None, delta: int) -> None:
        if key is not None:
            self.counts.add(key, delta)


class GuardedHttpProtocol(HttpToolsProtocol):
    peers: ClassVar[PeerCounts]
    deadline_seconds: ClassVar[float]
    _deadline: asyncio.TimerHandle | None = None
    _peer: str | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        key = self.peers.key(self.client)
        if self.peers.full(key):
            transport.abort()  # connection_lost follows: nothing was counted
            return
        self._peer = key
        self.peers.add(key, +1)
        self._arm()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        self.peers.add(self._peer, -1)
        self._peer = None
        super().connection_lost(exc)

    def on_message_begin(self) -> None:
        super().on_message_begin()
        if self._deadline is None:
            self._arm()

    def on_message_complete(self) -> None:
        self._disarm()
        super().on_message_complete()

    def handle_websocket_upgrade(self) -> None:
        """The socket protocol counts the connection from here on (`connection_made`).

        This protocol is done then, but no `connection_lost` comes to it, where uvicorn
        breaks its cycle with its parser (whose callbacks are its methods): broken here,
        it is freed at once rather than by a full collection (every reconnecting phone
        left ~5 KB behind, 3.5 MB a minute in bench.soak)."""
        self._disarm()
        self.peers.add(self._peer, -1)
        self._peer = None
        super().handle_websocket_upgrade()
        self.parser = None  # type: ignore[assignment]

    def _arm(self) -> None:
        self._deadline = self.loop.call_later(self.deadline_seconds, self._too_slow)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _too_slow(self) -> None:
        self._deadline = None
        self.transport.close()


def guarded_http_protocol(peers: PeerCounts, deadline_seconds: float) -> type[Any]:
    """The protocol class for uvicorn's `http` setting."""
    attributes = {"peers": peers, "deadline_seconds": deadline_seconds}
    return type("GuardedHttpProtocol", (GuardedHttpProtocol,), attributes)
