"""Effects: what a room's event asks of the world outside the room, done exactly once.

An effect is stored in the room's snapshot by the same commit as the event that caused
it. After the commit the owner carries it out and then tells the room it is done (an
`effect_done` envelope, committed like any other). An owner that dies in between leaves
it in the snapshot, so the next owner carries it out again: handlers are idempotent by
the effect's id, which is what makes "at least once" exactly once.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass

from app.games.seam import Effect

log = logging.getLogger("bankit.effects")


@dataclass(frozen=True, slots=True)
class Source:
    """The room an effect comes from, as its handler may need it."""

    code: str
    tokens: Mapping[str, str]  # token hash -> principal (seats to hand on)


Handler = Callable[[Source, Effect], Awaitable[None]]


class Effects:
    """The handlers of each kind of effect, registered at start-up."""

    def __init__(self) -> None:
        self._handlers: dict[str, Handler] = {}

    def register(self, kind: str, handler: Handler) -> None:
        self._handlers[kind] = handler

    async def run(self, source: Source, effect: Effect) -> bool:
        """Carry one effect out; False (and it stays pending) when it failed."""
        handler = self._handlers.get(effect.kind)
        if handler is None:
            log.error("room %s: no handler for effect %s", source.code, effect.kind)
            return False
        try:
            await handler(source, effect)
        except Exception:  # a failed effect is retried by the next owner or commit
            log.exception("room %s: effect %s failed", source.code, effect.id)
            return False
        return True
