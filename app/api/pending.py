"""Every command sent through this process gets exactly one answer: the pending table.

Only with a shared backplane (Redis), where answers travel between processes; in one
process the commit hands each answer over itself.

Each send (every message of a socket, duplicates of one `id` included, and every HTTP
request's command) gets a key of its own, `<socket key>#<n>`, so that two sends are
never collapsed, and waits here until its answer comes. The first answer for a key is
handed on (`claim`); any later one (pub/sub and the durable stream may both bring it)
is dropped. The answer normally comes by pub/sub, published by the commit; the bus
itself re-reads the rooms' durable answer streams after a break in its subscription
(app/bus/redis/answers.py). For what is still missing, the sweeper, per room:
- after `LOOK_AFTER` s (then every `LOOK_EVERY` s): asks the bus to read the room's
  answer stream again, then looks the command's `id` up in the room snapshot's
  `accepted` map (`{principal: {id: seq}}`) and answers `ack` with the recorded seq
  (not when commits wait for replicas: a record read then may be one not yet
  confirmed, and later taken back; the re-submit answers instead);
- after `RESUBMIT_AFTER` s (then every `RESUBMIT_EVERY` s): submits the same envelope
  again, with the same `id` and key: the room dedupes by id, so it is applied once, and
  whichever answer comes first is the one handed on;
- after `GIVE_UP_AFTER` s: answers `unavailable` (retrying with the same id is safe).
A command without an `id` cannot be re-submitted safely (it would apply twice) nor be
found in `accepted`: it is answered from the durable stream only, and `unavailable`
after `GIVE_UP_AFTER` s. That can only happen when its room had no working owner for
that long, and then it may, rarely, still be applied later: clients that need
certainty send ids (the phone UI does). Sends whose socket (or request) is gone are
dropped. The sweeper runs only while something is pending.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import itertools
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from app.bus.base import BusUnavailable
from app.bus.shared import SharedBus
from app.games.seam import Sender
from app.rooms.envelope import CommandEnvelope
from app.rooms.outgoing import ack, refusal
from app.rooms.registry import RoomRegistry, UnknownRoom

log = logging.getLogger("bankit.pending")

SWEEP_SECONDS = 0.25
LOOK_AFTER, LOOK_EVERY = 2.0, 1.0
RESUBMIT_AFTER, RESUBMIT_EVERY = 5.0, 5.0
GIVE_UP_AFTER = 20.0


@runtime_checkable
class KeepsAnswers(Protocol):
    """A bus whose answers outlive pub/sub (RedisBus)."""

    async def recover_answers(self, code: str) -> int: ...

    @property
    def min_replicas(self) -> int: ...


@dataclass(slots=True)
class Sent:
    code: str
    envelope: CommandEnvelope
    at: float
    look_at: float
    resubmit_at: float


class Pending:
    def __init__(
        self,
        bus: object,
        registry: RoomRegistry,
        deliver: Callable[[str, bytes], None],
        alive: Callable[[str], bool],
    ) -> None:
        self._bus = bus if isinstance(bus, KeepsAnswers) else None
        # One process: the commit hands the answer over in the same call, so nothing
        # can be lost on the way and there is nothing to track.
        self.tracking = isinstance(bus, SharedBus)
        self._registry = registry
        self._deliver = deliver  # the hub's on_reply: it claims, then routes
        self._alive = alive
        self._sent: dict[str, Sent] = {}
        self._numbers = itertools.count(1)
        self._sweeper: asyncio.Task[None] | None = None

    def __len__(self) -> int:
        return len(self._sent)

    def track(self, code: str, envelope: CommandEnvelope) -> CommandEnvelope:
        """The envelope to submit: the same, with a key of this send's own."""
        if not self.tracking:
            return envelope
        key = f"{envelope.key}#{next(self._numbers)}"
        tracked = dataclasses.replace(envelope, key=key)
        now = time.monotonic()
        self._sent[key] = Sent(code, tracked, now, now + LOOK_AFTER, now + RESUBMIT_AFTER)
        if self._sweeper is None or self._sweeper.done():
            self._sweeper = asyncio.create_task(self._sweep_forever(), name="pending-sweeper")
        return tracked

    def drop(self, key: str) -> None:
        """The submit failed: the caller answers it (`unavailable`)."""
        self._sent.pop(key, None)

    def claim(self, key: str) -> str | None:
        """An answer for `key` came: the receiver's key, or None if it was answered already."""
        receiver, tracked, _ = key.partition("#")
        if not tracked:
            return key  # not sent through this table
        return receiver if self._sent.pop(key, None) is not None else None

    # -- the sweeper -------------------------------------------------------------------
    async def _sweep_forever(self) -> None:
        while self._sent:
            await asyncio.sleep(SWEEP_SECONDS)
            try:
                await self.sweep()
            except Exception:  # a bug here must not stop the answers
                log.exception("pending answers: sweep failed")

    async def sweep(self) -> None:
        now = time.monotonic()
        for key, sent in list(self._sent.items()):
            if not self._alive(key.partition("#")[0]):
                del self._sent[key]  # its socket closed, or its request timed out
            elif now - sent.at >= GIVE_UP_AFTER:
                message = "No answer came from the room; retry with the same id."
                self._deliver(key, refusal(sent.envelope.id, "unavailable", message))
        due = {sent.code for sent in self._sent.values() if now >= sent.look_at}
        await asyncio.gather(*(self._look(code) for code in due))

    async def _look(self, code: str) -> None:
        """Answers lost on the way: the durable stream, then `accepted`, then submit again."""
        try:
            if self._bus is not None:
                await self._bus.recover_answers(code)
            waiting = self._waiting(code)
            # With replicas, a record read here may be a commit not yet confirmed (and
            # then taken back): only the re-submit below answers from it.
            tentative = self._bus is not None and self._bus.min_replicas > 0
            if not tentative and any(sent.envelope.id is not None for _, sent in waiting):
                snapshot = await self._registry.snapshot(code)
                accepted = snapshot["accepted"] if snapshot else {}
                for key, sent in waiting:
                    seq = _accepted_seq(accepted, sent.envelope)
                    if seq is not None:
                        log.info("room %s: %s answered from the accepted ids", code, key)
                        self._deliver(key, ack(sent.envelope.id, seq))
        except BusUnavailable:
            pass  # the next look tries again
        now = time.monotonic()
        for key, sent in self._waiting(code):
            sent.look_at = now + LOOK_EVERY
            if sent.envelope.id is not None and now >= sent.resubmit_at:
                sent.resubmit_at = now + RESUBMIT_EVERY
                log.info("room %s: no answer for %s yet; submitting it again", code, key)
                with contextlib.suppress(BusUnavailable, UnknownRoom):  # the next look retries
                    await self._registry.submit(code, sent.envelope)

    def _waiting(self, code: str) -> list[tuple[str, Sent]]:
        return [(key, sent) for key, sent in self._sent.items() if sent.code == code]


def _accepted_seq(accepted: dict[str, dict[str, int]], envelope: CommandEnvelope) -> int | None:
    if envelope.id is None:
        return None
    principal = Sender(envelope.role, envelope.pid).by  # as the room remembers it
    return accepted.get(principal, {}).get(envelope.id)
