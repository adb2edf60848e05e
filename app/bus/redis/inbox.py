"""An owner's wait for its room's inbox: pokes instead of one blocking XREAD per room.

`submit` pokes the lease holder (by pub/sub, or locally when it is this process); the
owner then XREADs once. Pokes can be lost while the subscription is away, so every
reconnect bumps the generation and wakes every owner, and owners re-read their stream
every `REREAD_SECONDS` even without a poke.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable

READ_COUNT = 100  # commands read (and committed) at once by an owner
REREAD_SECONDS = 5.0  # an owner re-reads its stream this often even without pokes

Reader = Callable[[str, str], Awaitable[list[tuple[str, bytes]]]]


class Inbox:
    def __init__(self, xread: Reader, generation: Callable[[], int]) -> None:
        self._xread = xread
        self._generation = generation
        self._pokes: dict[str, asyncio.Event] = {}
        self._read_at: dict[str, tuple[int, float]] = {}  # generation and time of last read
        self._reading: set[str] = set()  # rooms whose XREAD is on its way
        self._interrupted: set[str] = set()  # owners told to stop waiting (their lease is gone)

    def busy(self, code: str) -> bool:
        """Commands may wait in the room's stream for its owner: a poke not yet read, or a
        read on its way (the owner then applies what it brings before anything else)."""
        event = self._pokes.get(code)
        return code in self._reading or (event is not None and event.is_set())

    def poke(self, code: str) -> None:
        self._event(code).set()

    def wake_all(self) -> None:
        """Pokes may have been lost while the subscription was away."""
        for event in self._pokes.values():
            event.set()

    def read_now(self, code: str) -> None:
        """A new owner reads at once: commands may be waiting."""
        self._read_at.pop(code, None)
        self._interrupted.discard(code)

    def interrupt(self, code: str) -> None:
        """The owner's wait (or its next) ends now, with nothing read: it lost the room."""
        self._interrupted.add(code)
        self._event(code).set()

    def forget(self, code: str) -> None:
        self._pokes.pop(code, None)
        self._reading.discard(code)
        self._read_at.pop(code, None)

    def _event(self, code: str) -> asyncio.Event:
        event = self._pokes.get(code)
        if event is None:
            event = self._pokes[code] = asyncio.Event()
        return event

    async def read(self, code: str, after: str, block_ms: int | None) -> list[tuple[str, bytes]]:
        """Wait for a poke (or a reconnect, or the periodic re-read), then XREAD once."""
        event = self._event(code)
        wait = REREAD_SECONDS if block_ms is None else block_ms / 1000
        deadline = time.monotonic() + wait
        last = self._read_at.get(code)
        if (
            last is None
            or last[0] != self._generation()
            or time.monotonic() - last[1] >= REREAD_SECONDS
        ):
            event.set()
        while True:
            if event.is_set():
                event.clear()
                if code in self._interrupted:
                    self._interrupted.discard(code)
                    return []
                self._read_at[code] = (self._generation(), time.monotonic())
                self._reading.add(code)
                try:
                    batch = await self._xread(code, after)
                finally:
                    self._reading.discard(code)
                if batch:
                    if len(batch) >= READ_COUNT:
                        event.set()  # there may be more
                    return batch
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return []
            try:
                async with asyncio.timeout(remaining):
                    await event.wait()
            except TimeoutError:
                return []
