"""The games this server hosts, each one bundle registered by name.

A game is a folder: `app/games/<game>/` holds its pure rules (`rules.py`, whose
commands are frozen dataclasses), its state and view, and in `__init__.py` the pydantic
model of its create options and `make_game`, which bundles them with whatever HTTP the
game adds (a scoresheet, routes); its pages are `static/js/games/<game>/`. The room, the
bus and the endpoints know a game only through `Game`: they never import a game's module.
"""

from __future__ import annotations

import importlib
import json
import typing
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Annotated, Any, Union

from pydantic import BaseModel, Field, TypeAdapter, ValidationError

from app.games.seam import Rules, Undo

if typing.TYPE_CHECKING:
    from fastapi import APIRouter

    from app.config import Settings

Scoresheet = Callable[[Mapping[str, Any]], list[list[Any]]]  # a state -> its CSV rows


class BadCommand(Exception):
    """A socket message the game cannot read: the protocol's `bad_message`."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def _tag(command: type[Any]) -> str:
    tag: str = typing.get_type_hints(command)["type"].__args__[0]
    return tag


def _adapter(commands: tuple[type[Any], ...]) -> TypeAdapter[Any]:
    union = Union[commands]  # type: ignore[valid-type]  # noqa: UP007
    return TypeAdapter(Annotated[union, Field(discriminator="type")])


@dataclass(frozen=True)
class Game:
    name: str
    title: str  # what the home page offers
    rules: Rules[Any]
    options: type[BaseModel]  # the `POST /api/rooms` body, its `game` field included
    commands: tuple[type[Any], ...]  # what sockets may send (`undo` is every game's)
    server_commands: tuple[type[Any], ...] = ()  # what only the server sends (a join)
    server_options: type[BaseModel] | None = None  # options only the server may give
    collection: str = "rooms"  # its URLs: /api/<collection>/{code}, /ws/<collection>/{code}
    scoresheet: Scoresheet | None = None  # GET /api/<collection>/{code}/scoresheet.csv
    routes: APIRouter | None = None  # endpoints of its own, mounted while it is registered
    draws: Callable[[Mapping[str, Any]], bool] = lambda options: False  # from its create data:
    # may such a room draw chance? It then commits to a server seed (docs/fair-dice.md)
    offered: bool = True  # on the home page (`GET /api/games`); a group has its own
    keep_seconds: float | None = None  # idle time before it is freed (None: the rooms')
    _socket: TypeAdapter[Any] = field(init=False, repr=False)
    _inbox: TypeAdapter[Any] = field(init=False, repr=False)
    tags: frozenset[str] = field(init=False)

    def __post_init__(self) -> None:
        socket = (*self.commands, Undo)
        object.__setattr__(self, "_socket", _adapter(socket))
        object.__setattr__(self, "_inbox", _adapter((*socket, *self.server_commands)))
        object.__setattr__(self, "tags", frozenset(_tag(c) for c in socket))

    def parse(self, text: str | bytes) -> Any:
        """A socket's command, typed for `rules.decide`; BadCommand when it is not one."""
        return self._read(self._socket, text)

    def internal(self, text: str | bytes) -> Any:
        """A command from the room's inbox (socket commands and the server's own)."""
        return self._read(self._inbox, text)

    def server_command(self, data: Mapping[str, Any]) -> str:
        """The text of a command the server builds, checked like any other (BadCommand)."""
        text = json.dumps(data)  # escapes what orjson refuses (a name's lone surrogate)
        self.internal(text)
        return text

    def create_options(self, body: Mapping[str, Any], server: bool = False) -> dict[str, Any]:
        """The create event's options (without `game`); pydantic's ValidationError if bad.

        `server`: a room the server creates (an effect) may take `server_options`."""
        model = (self.server_options if server else None) or self.options
        return model.model_validate(dict(body)).model_dump(exclude={"game"}, exclude_none=True)

    def _read(self, adapter: TypeAdapter[Any], text: str | bytes) -> Any:
        try:
            return adapter.validate_json(text)
        except ValidationError as error:
            raise BadCommand(describe(error, self.tags)) from None


def describe(error: ValidationError, tags: frozenset[str]) -> str:
    """pydantic's first complaint in the protocol's words."""
    first = error.errors(include_url=False)[0]
    where = ".".join(str(part) for part in first["loc"] if part not in tags)
    if first["type"] == "union_tag_invalid":
        return "Unknown message type: use " + ", ".join(sorted({*tags, "ping"})) + "."
    if first["type"] == "union_tag_not_found":
        return "A message needs a type."
    return f"{where}: {first['msg']}" if where else str(first["msg"])


class GameRegistry:
    """Games by name, from the modules named in the `games` setting.

    Each such module has `make_game(settings) -> Game`, so a game can read the
    settings that concern it (BANK's `max_players`)."""

    def __init__(self, games: Iterable[Game]) -> None:
        self._games = {game.name: game for game in games}

    @classmethod
    def load(cls, settings: Settings) -> GameRegistry:
        names = [name.strip() for name in settings.games.split(",") if name.strip()]
        return cls(importlib.import_module(name).make_game(settings) for name in names)

    def get(self, name: str) -> Game | None:
        return self._games.get(name)

    def __getitem__(self, name: str) -> Game:
        return self._games[name]

    def __iter__(self) -> Iterator[Game]:
        return iter(self._games.values())

    @property
    def names(self) -> list[str]:
        return list(self._games)
