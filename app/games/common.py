"""Commands several games share, as the rules read them (see app/games/ for the wire).

A command is a frozen dataclass whose first field is its `type`; its schema reads it
from JSON strictly (`STRICT`), so the rules get ints as ints and lists as lists."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

from app.games.seam import NO_SEATING, STRICT, Event, RuleError, Seating


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


# BANK's house rules: BANK rooms read them, and a tournament carries them to its BANK tables.
BANK_HOUSE_RULES: dict[str, tuple[int, int, int | None]] = {  # name: (lowest, highest, seed's)
    "safe_rolls": (1, 5, 3),  # the first rolls of a round, on which a 7 adds
    "seven_points": (0, 1000, 70),  # what a 7 adds during them
    "min_bank": (1, 100_000, None),  # no one may BANK below it (None: no minimum)
}
DOUBLES = ("double", "double_add")  # from the first risky roll on: x2, or x2 + the roll


def bank_house_rules(options: Mapping[str, Any]) -> dict[str, Any]:
    """The BANK house rules of `options` that differ from the seed's; RuleError if bad."""
    chosen: dict[str, Any] = {}
    for key, (low, high, seed) in BANK_HOUSE_RULES.items():
        value = options.get(key, seed)
        if value is not None and (type(value) is not int or not low <= value <= high):
            raise RuleError(f"bad_{key}", f"{key} is a whole number from {low} to {high}.")
        if value != seed:
            chosen[key] = value
    doubles = options.get("doubles", DOUBLES[0])
    if doubles not in DOUBLES:
        raise RuleError("bad_doubles", "doubles is double or double_add.")
    if doubles != DOUBLES[0]:
        chosen["doubles"] = doubles
    return chosen


# -- a game started from a group tells the group its status, and its result once over ----
def group_report(status: str, players: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """The report of a game started from a group (app/games/group): its `status`, and
    with a finished game its `result`: one row per player, `id`, `name`, `score`, `won`
    and the game's own numbers (BANK's `biggest_bank`, Bunco's `buncos`...)."""
    return {"status": status} if players is None else {"status": status, "result": players}
