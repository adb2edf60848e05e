"""Commands several games share, as the rules read them (see app/games/ for the wire).

A command is a frozen dataclass whose first field is its `type`; its schema reads it
from JSON strictly (`STRICT`), so the rules get ints as ints and lists as lists."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

from app.games.seam import NO_SEATING, STRICT, Event, Seating


@dataclass(frozen=True, slots=True)
class Start:
    type: Literal["start"]
    __pydantic_config__: ClassVar[Any] = STRICT


@dataclass(frozen=True, slots=True)
class Kick:
    type: Literal["kick"]
    player_id: str
    __pydantic_config__: ClassVar[Any] = STRICT


@dataclass(frozen=True, slots=True)
class Join:
    """Built by the server for `POST …/players`, never read from a socket."""

    type: Literal["join"]
    player_id: str
    name: str
    __pydantic_config__: ClassVar[Any] = STRICT


def join_kick_seating(event: Event) -> Seating:
    """A `join` seats its player, a `kick` unseats it: the seating of most games."""
    if event.type == "join":
        return Seating(seated=(event.data["player_id"],))
    if event.type == "kick":
        return Seating(unseated=(event.data["player_id"],))
    return NO_SEATING


def virtual_rolls(options: Mapping[str, Any]) -> bool:
    """The server rolls (`roll_entry: "virtual"`): such a room draws, so it commits."""
    return options.get("roll_entry") == "virtual"
