"""The frames this process committed, kept until its own subscription brings them back.

Every process delivers a room's frames from the room's channel: one ordered source for
every socket (docs/architecture.md). The owner's own messages come back to it too; for
those, the subscriber hands on the frames the room made, with their view and their
patch (`Frame.ops`), instead of decoding the message: the hub then patches from them as
in one process (no parse of the whole state, no diff).
"""

from __future__ import annotations

import collections
from collections.abc import Sequence

from app.bus.base import Frame

KEPT = 8  # per room: messages on their way back (a lost one falls off)


class OwnFrames:
    def __init__(self) -> None:
        self._sent: dict[str, collections.deque[tuple[bytes, Sequence[Frame]]]] = {}

    def sent(self, code: str, message: bytes, frames: Sequence[Frame]) -> None:
        """A commit about to publish `message` (made of `frames`) to the room's channel."""
        queue = self._sent.get(code)
        if queue is None:
            queue = self._sent[code] = collections.deque(maxlen=KEPT)
        queue.append((message, frames))

    def back(self, code: str, message: bytes) -> Sequence[Frame] | None:
        """The frames of `message` if this process sent it (those sent before it and not
        seen came to nothing: a fenced commit, a lost message); None: decode it."""
        queue = self._sent.get(code)
        if not queue:
            return None
        for n, (sent, frames) in enumerate(queue):
            if sent == message:
                for _ in range(n + 1):
                    queue.popleft()
                if not queue:
                    del self._sent[code]
                return frames
        return None

    def forget(self, code: str) -> None:
        self._sent.pop(code, None)
