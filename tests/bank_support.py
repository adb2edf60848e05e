"""Driving BANK's pure rules and its `Room` from tests with plain dicts and fixed dice."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, TypeVar

import orjson

from app.config import Settings
from app.games.bank import make_game
from app.games.bank.rules import Join
from app.games.registry import BadCommand, Game
from app.games.seam import Event, RuleError, Rules, Sender
from app.rooms import envelope as envelopes
from app.rooms.room import Outcome, Room

T = TypeVar("T")
BANK: Game = make_game(Settings())
TOURNAMENT = "T4QX"  # the parent of `table_options`' table


def table_options() -> dict[str, Any]:
    """A tournament's one-round table of two seated players, its banker rolling, as the
    tournament creates it (`server=True`: the fields only the server may set)."""
    seats = [{"player_id": "a", "name": "Ann"}, {"player_id": "b", "name": "Bob"}]
    body = {"game": "bank", "rounds": 1, "roll_entry": "banker", "parent": TOURNAMENT}
    body |= {"tournament": {"game": 1, "table": 1}, "seats": seats}
    return BANK.create_options(body, server=True)


class DiceChance:
    """A `Chance` that rolls the given dice (again and again) and shuffles nothing."""

    def __init__(self, *dice: int) -> None:
        self._dice = dice or (1, 2)
        self._at = 0

    def dice(self, count: int, sides: int = 6) -> tuple[int, ...]:
        drawn = tuple(self._dice[(self._at + i) % len(self._dice)] for i in range(count))
        self._at += count
        return drawn

    def shuffle(self, items: Sequence[T]) -> list[T]:
        return list(items)


def command(data: Mapping[str, Any], game: Game = BANK) -> Any:
    """A command dict typed as the room types it (RuleError bad_message if it is not one)."""
    if data.get("type") == "join":  # built by the server, whatever the name holds
        return Join(data["player_id"], data["name"])
    try:
        return game.internal(orjson.dumps(data))
    except BadCommand as bad:
        raise RuleError("bad_message", bad.message) from None


def decide(
    rules: Rules[Any],
    state: Any,
    sender: Sender,
    data: Mapping[str, Any],
    dice: Sequence[int] = (1, 2),
) -> Event:
    return rules.decide(state, sender, command(data), DiceChance(*dice))


def view(rules: Rules[Any], state: Any) -> dict[str, Any]:
    """The view as a spectator sees it with nobody connected."""
    return rules.view(state, lambda _: False)


def handle(room: Room, envelope: Mapping[str, Any], now: int, dice: Sequence[int]) -> Outcome:
    """Hand `room` an envelope written as a dict (its `cmd` a dict too)."""
    data = dict(envelope)
    if isinstance(data.get("cmd"), Mapping):
        data.setdefault("server", data["cmd"].get("type") == "join")  # the HTTP route's
        data["cmd"] = orjson.dumps(data["cmd"]).decode()
    data.setdefault("id", None) if data.get("k") == "cmd" else None
    return room.handle(envelopes.decode(orjson.dumps(data)), now, DiceChance(*dice))
