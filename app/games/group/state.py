"""A group's state: its members (by id only: names live on their member cards), the
games it started and what each reported, season by season."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

MAX_MEMBERS = 50
GAMES = ("bank", "bunco", "tournament")  # what a group starts


@dataclass(frozen=True, slots=True)
class GameLine:
    """A game the group started: `code` once it is made, its last status, and once it
    is over its result (one row per player; a guest's row carries its name)."""

    effect: str
    game: str
    season: int
    code: str | None = None
    status: str = "lobby"
    result: tuple[Mapping[str, Any], ...] | None = None


@dataclass(frozen=True, slots=True)
class GroupState:
    name: str
    season: int = 1
    members: tuple[str, ...] = ()
    games: tuple[GameLine, ...] = ()

    def line(self, code: str) -> GameLine | None:
        return next((g for g in self.games if g.code == code), None)

    def with_line(self, line: GameLine) -> GroupState:
        games = tuple(line if g.effect == line.effect else g for g in self.games)
        return replace(self, games=games)

    def without(self, member: str) -> GroupState:
        """The group once `member` left: their id and every row of theirs are gone."""
        games = tuple(
            g
            if g.result is None
            else replace(g, result=tuple(r for r in g.result if r["id"] != member))
            for g in self.games
        )
        return replace(self, members=tuple(m for m in self.members if m != member), games=games)
