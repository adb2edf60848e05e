"""The backplane: how server processes share rooms. One Protocol, two backends.

`MemoryBus` (one process, no Redis) and `RedisBus` (many processes) give the same
guarantees, and one contract test suite runs against both:
- a room's commands have one total order (`submit` then `read_commands`);
- one owner at a time (`claim`/`renew`/`release`, with an epoch that fences `commit`);
- `commit` stores the snapshot, the new log entries and the stream cursor at once,
  and only then publishes the frames, so nothing acknowledged is lost;
- every process gets each published frame through `on_frame`, in `seq` order.

Bus backends know nothing of rooms or rules: snapshots and envelopes are opaque bytes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

GONE = "gone"  # the one kind of frame a bus makes itself: the room was freed


class Rendering(Protocol):
    """A state's view and its `state` message, made when first read (app/rooms/
    rendering.py): a room in this process renders a view only if someone reads it."""

    @property
    def view(self) -> dict[str, Any]: ...

    @property
    def text(self) -> str: ...


class Frame:
    """One message for every local socket of a room, encoded once by the room's owner.

    The bus carries `kind` (a word without spaces), `seq` and `text` without reading
    them: the rooms make the frames and the hub reads them (app/api/hub.py); a bus
    itself makes only `gone`. A state frame that a room of this process made holds its
    `Rendering` instead of its text, and its patch (`ops`, app/games/patch.py: the
    operations from the room's previous state frame, seq - 1): the hub sends the patch
    to the sockets that asked for patches, and the text is made only if some socket
    (or a bus, for other processes) reads it. Neither crosses a wire."""

    __slots__ = ("_rendering", "_text", "kind", "ops", "seq")

    def __init__(
        self,
        kind: str,
        seq: int,
        text: str | Rendering,
        ops: list[Any] | None = None,
    ) -> None:
        self.kind = kind
        self.seq = seq
        self.ops = ops
        if isinstance(text, str):
            self._text: str | None = text
            self._rendering: Rendering | None = None
        else:
            self._text, self._rendering = None, text

    @property
    def text(self) -> str:
        if self._text is None:
            assert self._rendering is not None
            self._text = self._rendering.text
        return self._text

    @property
    def view(self) -> dict[str, Any] | None:
        """The state's view, decoded, when a room of this process made the frame."""
        return None if self._rendering is None else self._rendering.view

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Frame):
            return NotImplemented
        return (self.kind, self.seq, self.text) == (other.kind, other.seq, other.text)

    def __hash__(self) -> int:
        return hash((self.kind, self.seq, self.text))

    def __repr__(self) -> str:
        return f"Frame({self.kind!r}, {self.seq!r}, {self.text!r})"


@dataclass(frozen=True, slots=True)
class Reply:
    """A command's answer, for the process (`node`) and the socket (`key`) that sent it."""

    node: str
    key: str
    payload: bytes


FrameHandler = Callable[[str, Frame], None]
ReplyHandler = Callable[[str, bytes], None]


class BusUnavailable(Exception):
    """The backplane cannot be reached right now; nothing was done."""


Committed = Callable[[BusUnavailable | None], None]  # a write's end: None, or its failure


class Bus(Protocol):
    node_id: str

    async def start(self, on_frame: FrameHandler, on_reply: ReplyHandler) -> None: ...

    async def close(self) -> None: ...

    async def ready(self) -> bool:
        """Can this process serve rooms now (is the backplane reachable)?"""
        ...

    # -- room records ------------------------------------------------------------------
    async def create_room(
        self, code: str, snapshot: bytes, first_entry: bytes, keep_seconds: float | None = None
    ) -> bool:
        """Store a new room; False when the code is taken. `keep_seconds`: how long a bus
        that forgets rooms by itself (Redis's TTL) keeps this one after its last event,
        when longer than its own time (None: its own time)."""
        ...

    async def load_snapshot(self, code: str) -> bytes | None: ...

    async def load_log(self, code: str) -> list[bytes]: ...

    async def load_cursor(self, code: str) -> str:
        """The id of the last command the room's snapshot includes."""
        ...

    async def delete_room(self, code: str) -> None:
        """Forget the room and tell every process (a `gone` frame)."""
        ...

    # -- ownership -----------------------------------------------------------------
    async def claim(self, code: str) -> int | None:
        """Become the room's owner: its new epoch, or None when another process owns it."""
        ...

    async def renew(self, code: str, epoch: int) -> bool: ...

    async def release(self, code: str, epoch: int) -> None: ...

    # -- commands --------------------------------------------------------------------
    async def submit(self, code: str, envelope: bytes) -> None:
        """Append a command to the room's single ordered inbox."""
        ...

    def submit_nowait(self, code: str, envelope: bytes) -> bool:
        """`submit` without waiting, when the inbox is in this process; False: use `submit`."""
        ...

    async def read_commands(
        self, code: str, after: str, block_ms: int | None
    ) -> list[tuple[str, bytes]]:
        """Commands after cursor `after`, waiting up to `block_ms` (None: until one comes)."""
        ...

    async def commit(
        self,
        code: str,
        epoch: int,
        cursor: str,
        snapshot: bytes,
        entries: Sequence[bytes],
        frames: Sequence[Frame],
        replies: Sequence[Reply] = (),
    ) -> bool:
        """Persist atomically if `epoch` still owns the room, then publish and answer.

        False if fenced (then nothing is published and nobody is answered)."""
        ...

    # -- fan-out ---------------------------------------------------------------------
    async def subscribe(self, code: str) -> None: ...

    async def unsubscribe(self, code: str) -> None: ...


@runtime_checkable
class DurableBus(Protocol):
    """A bus whose rooms outlive the process (SqliteBus): adopted again at start, and
    taken out of memory while nobody plays in them (they come back when asked for)."""

    async def stored_rooms(self) -> list[str]: ...

    def queued(self, code: str) -> int:
        """Commands waiting in the room's inbox (an actor is stopped only at zero)."""
        ...


@runtime_checkable
class QuickCommit(Protocol):
    """A bus whose owner may apply a local socket's command at once (RedisBus): no XADD to
    the room's inbox and no XREAD back, only the commit (the owner's order is the order)."""

    def idle(self, code: str) -> bool:
        """Nothing of the room waits in its inbox or is being read from it, and a commit
        can be sent without waiting for anything else (False: submit to the inbox)."""
        ...

    def commit_soon(
        self,
        code: str,
        epoch: int,
        cursor: str,
        snapshot: bytes,
        entries: Sequence[bytes],
        frames: Sequence[Frame],
        replies: Sequence[Reply],
        logged: int | None,
        done: Committed,
    ) -> None:
        """`commit` without waiting: `done` is called once it is stored and published
        (None), or failed (BusUnavailable: fenced off, or the backplane failed). It
        stores only if the room's log has `logged` entries (None: any number), so that a
        commit sent before the one before it is answered stores nothing if that one did
        not happen."""
        ...

    async def log_length(self, code: str) -> int:
        """How many entries the room's log has (what the next commit extends)."""
        ...


@runtime_checkable
class Journal(Protocol):
    """A bus that stores a room's events apart from its snapshot (SqliteBus).

    Each log entry comes with a note: what the event changed beside the game state
    that only the snapshot would otherwise hold (the command id it answered, tokens,
    effects). The snapshot is then written only now and then; a room is restored from
    the last one, the whole log (the game state) and the notes after it."""

    async def append(
        self,
        code: str,
        epoch: int,
        cursor: str,
        records: Sequence[tuple[bytes, bytes]],
        snapshot: bytes | None,
        frames: Sequence[Frame],
        replies: Sequence[Reply] = (),
    ) -> bool:
        """Store `records` (entry, note) and `snapshot` when given (it covers every
        entry so far), then publish and answer; nothing to store: publish at once.

        False if fenced (then nothing is stored, published or answered)."""
        ...

    def queued(self, code: str) -> int:
        """Commands waiting in the room's inbox."""
        ...

    def append_soon(
        self,
        code: str,
        epoch: int,
        cursor: str,
        records: Sequence[tuple[bytes, bytes]],
        snapshot: bytes | None,
        frames: Sequence[Frame],
        replies: Sequence[Reply],
        done: Committed,
    ) -> bool:
        """`append` without waiting: False if fenced; else `done` is called once it is
        stored, published and answered (None), or failed (BusUnavailable, nothing stored).
        The owner applies a command in the loop turn it arrived in, and every room's
        writes of that turn go to disk in one transaction (one process)."""
        ...

    async def load_journal(self, code: str) -> tuple[int, list[tuple[bytes, bytes | None]]]:
        """How many entries the stored snapshot covers, and every entry with its note."""
        ...
