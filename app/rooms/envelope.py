"""What travels through a room's inbox, typed, and its one encoding.

The bus carries envelopes as opaque bytes; only this module writes or reads them.
A command's text is carried as the client sent it, so the owner parses it once,
with the room's game, into the rules' typed command.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import orjson


@dataclass(frozen=True, slots=True)
class CommandEnvelope:
    """A command for the room: who sent it, where its answer goes, and the command."""

    role: str
    pid: str | None
    id: str | None
    cmd: str  # the command's JSON text
    node: str = ""  # the process whose socket (or HTTP request) waits for the answer
    key: str = ""  # that socket's (or request's) key; "" when nobody waits
    th: str | None = None  # the token hash a seat opened by this command belongs to
    server: bool = False  # built by the server (a join, an effect): may be a server command
    auth: str | None = None  # the sender's token hash: the room refuses it once handed over


@dataclass(frozen=True, slots=True)
class PresenceEnvelope:
    """A player's sockets on `node` went up or down by `delta`."""

    node: str
    pid: str
    delta: int


@dataclass(frozen=True, slots=True)
class DropNodeEnvelope:
    """Forget the sockets of a process that died (rooms/watcher.py)."""

    node: str


@dataclass(frozen=True, slots=True)
class EffectDoneEnvelope:
    """The owner carried out the room's effect `effect` (rooms/effects.py)."""

    effect: str


Envelope = CommandEnvelope | PresenceEnvelope | DropNodeEnvelope | EffectDoneEnvelope
_KINDS: dict[str, type[Any]] = {
    "cmd": CommandEnvelope,
    "presence": PresenceEnvelope,
    "drop_node": DropNodeEnvelope,
    "effect_done": EffectDoneEnvelope,
}
_NAMES = {kind: name for name, kind in _KINDS.items()}


def encode(envelope: Envelope) -> bytes:
    fields = {name: getattr(envelope, name) for name in envelope.__slots__}
    return orjson.dumps({"k": _NAMES[type(envelope)], **fields})


def decode(raw: bytes) -> Envelope:
    data: dict[str, Any] = orjson.loads(raw)
    kind = _KINDS[data.pop("k")]
    envelope: Envelope = kind(**data)
    return envelope
