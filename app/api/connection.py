"""One WebSocket as the hub sees it: its identity, its rate limit and its small send queue.

A slow phone never delays the room: nothing here awaits. A frame goes to the wire at
once when the wire can take it; otherwise it waits in a queue that the wire drains
when it can (`flush`), a newer state replaces an older one not yet sent, and a
connection whose queue of other messages overflows is closed (it reconnects and
gets the full state). There is no task per connection.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import time
from typing import Protocol

from app.games.seam import Sender

CLOSE_GOING_AWAY = 1001
CLOSE_POLICY = 1008
CLOSE_TOO_BIG = 1009
CLOSE_TRY_LATER = 1013
CLOSE_BAD_TOKEN = 4401
CLOSE_UNKNOWN_ROOM = 4404


class Wire(Protocol):
    """What carries one socket's frames: the lean protocol (app/api/socket_protocol.py)
    or, under another ASGI server, Starlette's WebSocket (app/api/ws.py)."""

    patches: bool  # the client asked for states as patches (`?patches=1`, docs/protocol.md)
    # Its transport while a frame built once may be written to it as it is (open,
    # writable, no extension, nothing held by `cork`), else None. The hub writes a
    # state's frame there itself (no call per socket); it checks `is_closing()` first,
    # since the server may close the transport without the wire hearing of it.
    out: asyncio.Transport | None

    def write(self, text: str, frame: bytes | None) -> bool:
        """Send `text` now (`frame`: its text frame, built once for every socket), or
        False when the socket cannot take it now: the wire calls `Connection.flush` later.
        A socket that is closing or closed takes everything (and drops it)."""
        ...

    def cork(self) -> None:
        """Hold what is written from now on, until `uncork` writes it all at once (a
        command's state and its ack: one `send` instead of two)."""
        ...

    def uncork(self) -> None: ...

    def close(self, code: int, reason: str = "") -> None:
        """Send the close frame (once) and tell the socket's session it is gone."""
        ...


class _StateSlot:
    """The one unsent state in a queue; a newer state overwrites it in place."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text


class TokenBucket:
    __slots__ = ("burst", "rate", "stamp", "tokens")

    def __init__(self, rate: float, burst: int) -> None:
        self.rate, self.burst = rate, float(burst)
        self.tokens, self.stamp = float(burst), time.monotonic()

    def take(self) -> bool:
        now = time.monotonic()
        tokens = self.tokens + (now - self.stamp) * self.rate
        self.tokens = tokens if tokens < self.burst else self.burst
        self.stamp = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True


class Connection:
    __slots__ = (
        "_close_code",
        "_gone",
        "_gone_waiter",
        "_others",
        "_queue",
        "_queue_limit",
        "_slot",
        "_started",
        "awaiting",
        "bucket",
        "closing",
        "code",
        "direct",
        "identity",
        "key",
        "last_seq",
        "patch_base",
        "patches",
        "refused_in_a_row",
        "th",
        "wire",
    )

    def __init__(
        self,
        wire: Wire,
        code: str,
        identity: Sender,
        *,
        queue_limit: int,
        rate: float,
        burst: int,
        th: str | None = None,
    ) -> None:
        self.wire = wire
        self.code = code
        self.identity = identity
        self.th = th  # its token's hash, when the room's own tokens admitted it (hand-over)
        self.key = "c:" + secrets.token_hex(8)
        self.bucket = TokenBucket(rate, burst)
        self.refused_in_a_row = 0
        self.awaiting = 0  # commands sent whose answer has not come yet
        self.last_seq = 0
        self.patches = wire.patches
        # The seq of the last state this socket got as the hub's own frame, written at
        # once: the only state a patch may apply to (a welcome's or a resync's state
        # may differ from it in presence, at the same seq). 0: none.
        self.patch_base = 0
        self._queue_limit = queue_limit
        self._queue: list[str | _StateSlot] = []  # short-lived and short: a list is smaller
        self._slot: _StateSlot | None = None
        self._others = 0
        self._close_code: int | None = None
        self.closing = False  # closed, or closing: nothing more is sent (`_close_code` set)
        self._started = False  # the welcome goes first: until then everything queues
        # Started, nothing queued, not closing: a frame goes straight to the wire (the
        # hub reads it too, to write a state to the wire's transport itself).
        self.direct = False
        self._gone = False
        self._gone_waiter: asyncio.Future[None] | None = None  # made when someone waits

    # -- sending (never awaits) ------------------------------------------------------------
    def push_state(
        self, seq: int, text: str, frame: bytes | None = None, published: bool = False
    ) -> None:
        """Send or queue a state unless this connection already has it or a newer one.

        `published`: the room's frame of that seq, which the hub patches from."""
        if seq <= self.last_seq or self._close_code is not None:
            return
        self.last_seq = seq
        self.patch_base = 0
        if self._slot is not None:
            self._slot.text = text
            return
        if self.direct and self.wire.write(text, frame):
            if published:
                self.patch_base = seq
            return
        self.direct = False
        self._slot = _StateSlot(text)
        self._queue.append(self._slot)

    def push_patch(self, seq: int, base: int, text: str, frame: bytes) -> bool:
        """Send a state as a patch when this socket asked for them, has exactly the
        state it applies to and nothing queued; False: send the whole state instead."""
        if (
            self.direct
            and base == self.patch_base == self.last_seq
            and self.patches
            and self.wire.write(text, frame)
        ):
            self.last_seq = self.patch_base = seq
            return True
        return False

    def resend_state(self, seq: int, text: str) -> None:
        """The whole state again: the client's patches went wrong (it sent `sync`)."""
        self.last_seq = min(self.last_seq, seq - 1)
        self.push_state(seq, text)

    def push(self, text: str, frame: bytes | None = None) -> None:
        if self.direct and self.wire.write(text, frame):
            return
        if self._close_code is not None:
            return
        if self._others >= self._queue_limit:
            self.close(CLOSE_TRY_LATER)
            return
        self.direct = False
        self._others += 1
        self._queue.append(text)

    def start(self, first: str) -> None:
        """Send the welcome, then whatever queued behind it."""
        self._queue.insert(0, first)
        self._others += 1
        self._started = True
        self.flush()

    def flush(self) -> None:
        """Send what is queued while the wire takes it; then close, if asked to."""
        queue = self._queue
        while queue and self._started:
            item = queue[0]
            text = item.text if isinstance(item, _StateSlot) else item
            if not self.wire.write(text, None):
                return  # the wire calls again once the phone reads
            del queue[0]
            if isinstance(item, _StateSlot):
                self._slot = None
            else:
                self._others -= 1
        if self._close_code is not None:
            if not queue:
                self.wire.close(self._close_code)
        else:
            self.direct = self._started and not queue

    # -- closing -----------------------------------------------------------------------------
    def close(self, code: int, flush: bool = False) -> None:
        """Close the socket; `flush` sends what is queued first."""
        if self._close_code is not None:
            return
        self._close_code = code
        self.closing = True
        self.direct = False
        if not flush or not self._started:
            self._queue.clear()
            self._slot, self._others = None, 0
        if self._started:
            self.flush()  # closes once the queue is out
        else:
            self.wire.close(code)

    def closed(self) -> None:
        """The socket is gone (its wire says so): nothing more is sent."""
        if self._close_code is None:
            self._close_code = CLOSE_GOING_AWAY
            self.closing = True
        self.direct = False
        self._queue.clear()
        self._slot, self._others = None, 0
        self._gone = True
        if self._gone_waiter is not None and not self._gone_waiter.done():
            self._gone_waiter.set_result(None)

    async def drained(self, timeout: float = 2.0) -> None:
        """Wait (at most `timeout`) until the socket is gone."""
        if self._gone:
            return
        if self._gone_waiter is None:
            self._gone_waiter = asyncio.get_running_loop().create_future()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(self._gone_waiter), timeout)
