"""The state of a Bunco night, as frozen data, and the score of one roll.

A table's `rolloff_turns` counts the full turns left in its roll-off (0: not in one),
so a roll-off needs no other bookkeeping: a roll that scores 0 ends a turn.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal

from app.games.seam import Fairness

Status = Literal["lobby", "playing", "finished"]
Phase = Literal["waiting", "playing", "rolloff"]
Dice3 = tuple[int, int, int]

ROUNDS_PER_SET = 6
SEATS = 4
BUNCO = 21
THREE_OF_A_KIND = 5
BELL_AT = 21
ROLLOFF_TURNS = SEATS
MAX_PLAYERS = 24
PLAYER_COUNTS = frozenset(range(8, MAX_PLAYERS + 1, SEATS))


Movement = Literal["seed", "common"]


@dataclass(frozen=True, slots=True)
class HouseRules:
    """The table's own variants, chosen at create (the defaults are the seed's rules).

    `movement`: "seed", the High table's winners go to the Low table and every other
    table's winners one up; "common", the High table's winners stay, its losers go to the
    Low table and every other table's winners move up one."""

    bell_at: int = BELL_AT  # the points at the High table that ring the bell
    three_of_a_kind: int = THREE_OF_A_KIND  # three of a kind of another number
    movement: Movement = "seed"

    def differences(self) -> dict[str, int | str]:
        """The variants that differ from the seed's rules (the state's `house_rules`)."""
        seed = SEED_RULES
        return {
            name: getattr(self, name)
            for name in ("bell_at", "three_of_a_kind", "movement")
            if getattr(self, name) != getattr(seed, name)
        }


SEED_RULES = HouseRules()


def roll_points(dice: Dice3, target: int, house: HouseRules = SEED_RULES) -> int:
    """A roll's points in the round whose number is `target`."""
    if dice[0] == dice[1] == dice[2]:
        return BUNCO if dice[0] == target else house.three_of_a_kind
    return sum(1 for die in dice if die == target)


def team_of(seat: int) -> int:
    """Partners sit opposite: seats 0 and 2 are team 0, seats 1 and 3 team 1."""
    return seat % 2


def table_names(count: int) -> tuple[str, ...]:
    """High first, Low last; with more than 3 tables the middle ones are numbered."""
    if count == 1:
        return ("High",)
    if count == 3:
        return ("High", "Middle", "Low")
    middles = tuple(f"Middle {n}" for n in range(1, count - 1))
    return ("High", *middles, "Low")


@dataclass(frozen=True, slots=True)
class Player:
    id: str
    name: str
    wins: int = 0
    losses: int = 0
    buncos: int = 0


@dataclass(frozen=True, slots=True)
class LastRoll:
    dice: Dice3
    by: str
    points: int
    seq: int


@dataclass(frozen=True, slots=True)
class Table:
    seats: tuple[str, ...]
    scores: tuple[int, int] = (0, 0)
    roller_seat: int = 0
    rolloff_turns: int = 0
    last_roll: LastRoll | None = None

    @property
    def roller(self) -> str:
        return self.seats[self.roller_seat]

    @property
    def rolloff(self) -> bool:
        return self.rolloff_turns > 0

    @property
    def tied(self) -> bool:
        return self.scores[0] == self.scores[1]

    def team(self, team: int) -> tuple[str, str]:
        return (self.seats[team], self.seats[team + 2])

    def fresh(self) -> Table:
        """The table as the next round finds it: no points, seat 0 holds the dice."""
        return replace(self, scores=(0, 0), roller_seat=0, rolloff_turns=0, last_roll=None)


@dataclass(frozen=True, slots=True)
class TableResult:
    seats: tuple[str, ...]
    scores: tuple[int, int]
    winners: tuple[str, str]
    losers: tuple[str, str]


@dataclass(frozen=True, slots=True)
class RoundResult:
    set: int
    round: int
    bell_by: str
    tables: tuple[TableResult, ...]


@dataclass(frozen=True, slots=True)
class BuncoState:
    sets: int
    roll_entry: str
    status: Status = "lobby"
    set: int = 0
    round: int = 0
    phase: Phase | None = None
    players: tuple[Player, ...] = ()
    tables: tuple[Table, ...] = ()
    rounds_log: tuple[RoundResult, ...] = ()
    bell_by: str | None = None
    house: HouseRules = SEED_RULES
    fair: Fairness | None = None  # the room's committed dice (docs/fair-dice.md)
    in_group: bool = False  # started from a group: reports its result there (extension)

    def player(self, player_id: str) -> Player | None:
        return next((p for p in self.players if p.id == player_id), None)

    def table_of(self, player_id: str) -> int | None:
        """The index of the table where `player_id` sits, or None."""
        return next((i for i, t in enumerate(self.tables) if player_id in t.seats), None)

    @property
    def last_round(self) -> bool:
        return self.set == self.sets and self.round == ROUNDS_PER_SET
