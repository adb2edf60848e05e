"""A tournament's state: plain frozen data, built by `evolve` and read by the view."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from app.games.seam import Fairness
from app.games.tournament.scoring import Group, Scoring

Status = Literal["lobby", "playing", "scoring", "reroll", "between", "finished"]


@dataclass(frozen=True, slots=True)
class Player:
    id: str
    name: str


@dataclass(frozen=True, slots=True)
class Table:
    """`made`: its room exists, seats and all (the state names it only from then on);
    `locked`: its room confirmed it refuses undo, so its totals are final."""

    table: int
    code: str
    players: tuple[str, ...]
    status: str = "lobby"
    totals: Mapping[str, int] | None = None
    made: bool = True
    locked: bool = False


@dataclass(frozen=True, slots=True)
class Result:
    """A scored game: totals and places of those who played it, rerolls in order rolled."""

    game: int
    tables: tuple[str, ...]
    totals: Mapping[str, int]
    places: Mapping[str, int]
    rerolls: tuple[Group, ...]


@dataclass(frozen=True, slots=True)
class TournamentState:
    games: int
    rounds: int
    roll_entry: str
    max_players: int = 50
    status: Status = "lobby"
    current: int = 0
    players: tuple[Player, ...] = ()
    tables: tuple[Table, ...] = ()
    scoring: Scoring | None = None
    results: tuple[Result, ...] = ()
    closing: bool = False  # `score` accepted: the totals are taken once every table is locked
    table_rules: tuple[tuple[str, int | str], ...] = ()  # BANK house rules for its tables
    fair: Fairness | None = None  # the room's committed dice (virtual rerolls)
    in_group: bool = False  # started from a group: reports its result there (extension)

    def player(self, player_id: str) -> Player | None:
        return next((p for p in self.players if p.id == player_id), None)
