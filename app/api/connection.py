"""One WebSocket: its identity, its rate limit and its small send queue.

A slow phone never delays the room: frames are queued without awaiting, a newer
state replaces an older one not yet sent, and a connection whose queue of other
messages overflows is closed (it reconnects and gets the full state).
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import time
from collections import deque

from starlette.websockets import WebSocket, WebSocketState

from app.api.framing import frame_writer, text_frame
from app.rules.base import Sender

CLOSE_GOING_AWAY = 1001
CLOSE_POLICY = 1008
CLOSE_TOO_BIG = 1009
CLOSE_TRY_LATER = 1013
CLOSE_BAD_TOKEN = 4401
CLOSE_UNKNOWN_ROOM = 4404


class _StateSlot:
    """The one unsent state in a queue; a newer state overwrites it in place."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text


class TokenBucket:
    def __init__(self, rate: float, burst: int) -> None:
        self.rate, self.burst = rate, float(burst)
        self.tokens, self.stamp = float(burst), time.monotonic()

    def take(self) -> bool:
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True


class Connection:
    def __init__(
        self,
        websocket: WebSocket,
        code: str,
        identity: Sender,
        *,
        queue_limit: int,
        rate: float,
        burst: int,
    ) -> None:
        self.websocket = websocket
        self.code = code
        self.identity = identity
        self.key = "c:" + secrets.token_hex(8)
        self.bucket = TokenBucket(rate, burst)
        self.refused_in_a_row = 0
        self.last_seq = 0
        self._queue_limit = queue_limit
        self._queue: deque[str | _StateSlot] = deque()
        self._slot: _StateSlot | None = None
        self._others = 0
        self._wake = asyncio.Event()
        self._writer: asyncio.Task[None] | None = None
        self._close_code: int | None = None
        self._write_frame = frame_writer(websocket.scope)
        self._started = False
        self._sending = False  # the writer is draining the queue (a send may be paused)

    # -- queueing (never awaits) ---------------------------------------------------------
    def _write_now(self, frame: bytes) -> bool:
        """The fast path: nothing is queued or being sent before it, so write it at once."""
        return (
            self._started
            and not self._sending
            and not self._queue
            and self._write_frame is not None
            and self._write_frame(frame)
        )

    def push_state(self, seq: int, text: str, frame: bytes | None = None) -> None:
        """Send or queue a state unless this connection already has it or a newer one.

        `frame` is the state's WebSocket frame, built once for all connections."""
        if seq <= self.last_seq or self._close_code is not None:
            return
        self.last_seq = seq
        if self._slot is not None:
            self._slot.text = text
            return
        if frame is not None and self._write_now(frame):
            return
        self._slot = _StateSlot(text)
        self._queue.append(self._slot)
        self._wake.set()

    def push(self, text: str, frame: bytes | None = None) -> None:
        if self._close_code is not None:
            return
        if self._write_frame is not None and self._write_now(frame or text_frame(text.encode())):
            return
        if self._others >= self._queue_limit:
            self.close(CLOSE_TRY_LATER)
            return
        self._others += 1
        self._queue.append(text)
        self._wake.set()

    def close(self, code: int, flush: bool = False) -> None:
        """Ask the writer to close the socket; `flush` sends what is queued first."""
        if self._close_code is None:
            self._close_code = code
            if not flush:
                self._queue.clear()
            self._wake.set()

    # -- the writer --------------------------------------------------------------------
    def start(self, first: str) -> None:
        self._queue.appendleft(first)
        self._others += 1
        self._wake.set()
        self._started = True
        self._writer = asyncio.create_task(self._write_forever())

    async def stop(self) -> None:
        if self._writer is not None:
            self._writer.cancel()
            await asyncio.gather(self._writer, return_exceptions=True)

    async def drained(self, timeout: float = 2.0) -> None:
        """Wait until the writer has closed the socket (see `close`)."""
        if self._writer is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(asyncio.shield(self._writer), timeout)

    @property
    def closing(self) -> bool:
        return self._close_code is not None

    async def _write_forever(self) -> None:
        send = self.websocket.send_text
        queue = self._queue
        try:
            while True:
                await self._wake.wait()
                self._wake.clear()
                self._sending = True
                while queue:
                    item = queue.popleft()
                    if isinstance(item, _StateSlot):
                        self._slot = None
                        await send(item.text)
                    else:
                        self._others -= 1
                        await send(item)
                self._sending = False
                if self._close_code is not None:
                    await self._close_socket(self._close_code)
                    return
        except Exception:  # noqa: BLE001  (the peer went away mid-send: the reader sees it)
            with contextlib.suppress(Exception):
                await self.websocket.close(CLOSE_GOING_AWAY)

    async def _close_socket(self, code: int) -> None:
        if self.websocket.application_state != WebSocketState.DISCONNECTED:
            with contextlib.suppress(Exception):
                await self.websocket.close(code)
