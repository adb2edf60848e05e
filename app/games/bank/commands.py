"""BANK!'s commands: what sockets send (validated strictly by app/games/bank/__init__.py) and what
only the server sends (a seat, a tournament's lock, the code of the next game)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Literal

from app.games.common import Kick, Start
from app.games.seam import STRICT


@dataclass(frozen=True, slots=True)
class Roll:
    """`dice` as rolled, or (game night) only the `total` the banker's pad knows."""

    __pydantic_config__: ClassVar[Any] = STRICT
    type: Literal["roll"]
    dice: list[int] | None = None
    total: int | None = None


@dataclass(frozen=True, slots=True)
class Bank:
    __pydantic_config__: ClassVar[Any] = STRICT
    type: Literal["bank"]
    player_id: str | None = None


@dataclass(frozen=True, slots=True)
class Unbank:
    """The banker takes back a BANK it made for a player this round (a mistaken tap)."""

    __pydantic_config__: ClassVar[Any] = STRICT
    type: Literal["unbank"]
    player_id: str


@dataclass(frozen=True, slots=True)
class PlayAgain:
    """From a finished game: a new room with the same seats (minus `drop`)."""

    __pydantic_config__: ClassVar[Any] = STRICT
    type: Literal["play_again"]
    drop: list[str] | None = None


@dataclass(frozen=True, slots=True)
class Join:
    """Built by the server for `POST /api/rooms/{code}/players`, never read from a socket.

    `phone`: False when the body says the player has none; `by_banker`: the request
    carried the banker's token (a late seat after the start)."""

    player_id: str
    name: str
    type: Literal["join"] = "join"
    phone: bool = True
    by_banker: bool = False


@dataclass(frozen=True, slots=True)
class Lock:
    """Sent by the server when a tournament has scored this table: undo stops here."""

    type: Literal["lock"] = "lock"


@dataclass(frozen=True, slots=True)
class Spawned:
    """Sent by the server once the room of `play_again` exists (rooms/spawning.py)."""

    effect: str
    code: str
    type: Literal["spawned"] = "spawned"
    __pydantic_config__: ClassVar[Any] = STRICT


@dataclass(frozen=True, slots=True)
class AddBanker:
    """Sent by the server for a tournament table's banker link: the envelope's token
    becomes one more banker token of this table room (its seating binds it)."""

    type: Literal["add_banker"] = "add_banker"


BankCommand = Start | Roll | Bank | Unbank | Kick | PlayAgain | Join | Lock | Spawned | AddBanker
