"""What every game's rules give the room: the seam between the room actor and a game.

A game is decide/evolve over plain data, so the actor can host BANK!, a tournament
or Bunco alike: `decide` validates a command against the state and names the event
it causes (or raises `RuleError`); `evolve` applies an event and never fails;
replaying the events through `evolve` rebuilds the state.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal, Protocol, TypeVar

Role = Literal["banker", "player", "spectator"]
Dice = tuple[int, int]


class RuleError(Exception):
    """A refused command: `code` is the protocol's stable error code."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass(frozen=True, slots=True)
class Actor:
    """Who sent a command: the banker, a seated player, or a spectator."""

    role: Role
    player_id: str | None = None

    @property
    def by(self) -> str:
        """The event log's `by`: the player's id, or "banker"."""
        return self.player_id if self.role == "player" and self.player_id else self.role


@dataclass(frozen=True, slots=True)
class Event:
    """What a command did, as the event log stores it (without seq, time and hash)."""

    type: str
    data: Mapping[str, Any]


S = TypeVar("S")


class Rules(Protocol[S]):
    """One game's rules, pure: no I/O, no clock, no randomness (dice come in as data)."""

    name: str
    undoable: frozenset[str]

    def create(self, options: Mapping[str, Any]) -> S:
        """The state right after the room's `create` event."""
        ...

    def decide(self, state: S, actor: Actor, command: Mapping[str, Any], chance: Dice) -> Event:
        """Validate `command` in protocol error order; `chance` are fair dice if it needs them."""
        ...

    def evolve(self, state: S, event: Event, seq: int) -> S:
        """Apply an event decided earlier (or read from the log)."""
        ...

    def view(self, state: S) -> dict[str, Any]:
        """The state as clients see it, without `code`, `seq` and presence."""
        ...

    def player_ids(self, state: S) -> list[str]:
        """Seated players, in seating order (for presence)."""
        ...
