"""Desert Dynasty scoring, pure: places, sudden-death rerolls, points, bonus, standings.

Points are kept in halves (ints: 3 points is 6) so sums are exact; `as_number` turns
them into the JSON numbers of the contract: an int when whole (3, never 3.0), else a
float with one half (1.5). Places are competition ranking ("1224"): equal totals share
the first place number of their run and the next total skips the shared ones.

Sudden death: every run of equal totals whose places include any of 1..5 (5th-6th
included) is a `Group`; each of its players rolls two dice once; the highest dice
total takes the group's first place, the next highest the next one, and so on. Equal
dice totals with a place of 1..5 among their places roll again as a new, smaller group;
equal dice totals wholly below 5th share their first place number, as equal game
totals below 5th do. Within a group, players keep the order they were given in.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace

Dice = tuple[int, int]

SCORED_PLACES = 5
POINTS_HALVES = (6, 4, 3, 2, 1)  # places 1..5: 3, 2, 1.5, 1 and 0.5 points
BONUS_HALVES = 6  # 3 points for a player 1st in every game
BONUS_MIN_GAMES = 2


def as_number(halves: int) -> int | float:
    """Half points as a JSON number: 6 → 3, 3 → 1.5."""
    return halves // 2 if halves % 2 == 0 else halves / 2


def competition_places(totals: Mapping[str, int]) -> dict[str, int]:
    """Each player's place: 1 + the number of players with a strictly higher total."""
    ranked = sorted(totals.values(), reverse=True)
    first_at: dict[int, int] = {}
    for index, total in enumerate(ranked):
        first_at.setdefault(total, index + 1)
    return {pid: first_at[total] for pid, total in totals.items()}


@dataclass(frozen=True, slots=True)
class Group:
    """Players tied for consecutive places, each to roll once to part them."""

    places: tuple[int, ...]
    players: tuple[str, ...]
    rolls: tuple[Dice | None, ...]

    @classmethod
    def tied(cls, first_place: int, players: Sequence[str]) -> Group:
        places = tuple(range(first_place, first_place + len(players)))
        return cls(places, tuple(players), (None,) * len(players))

    def roll_of(self, player_id: str) -> Dice | None:
        return self.rolls[self.players.index(player_id)]

    @property
    def complete(self) -> bool:
        return all(dice is not None for dice in self.rolls)


def at_stake(first_place: int) -> bool:
    """A run of ties starting at this place has points between its players."""
    return first_place <= SCORED_PLACES


def _runs(ordered: Sequence[str], key: Mapping[str, int]) -> list[list[str]]:
    """Consecutive players of `ordered` (best first) with the same key."""
    runs: list[list[str]] = []
    for pid in ordered:
        if runs and key[runs[-1][0]] == key[pid]:
            runs[-1].append(pid)
        else:
            runs.append([pid])
    return runs


def resolve(group: Group) -> tuple[dict[str, int], tuple[Group, ...]]:
    """A complete group's outcome: the places it decides, and the groups that roll again."""
    totals = {pid: sum(dice) for pid, dice in zip(group.players, group.rolls) if dice}
    ordered = sorted(group.players, key=lambda pid: -totals[pid])
    placed: dict[str, int] = {}
    again: list[Group] = []
    place = group.places[0]
    for run in _runs(ordered, totals):
        if len(run) > 1 and at_stake(place):
            again.append(Group.tied(place, run))
        else:
            placed.update(dict.fromkeys(run, place))
        place += len(run)
    return placed, tuple(again)


@dataclass(frozen=True, slots=True)
class Scoring:
    """One game's places while its rerolls are rolled: decided places, pending groups,
    and the groups rolled so far (in the order they were completed)."""

    totals: Mapping[str, int]
    places: Mapping[str, int]
    pending: tuple[Group, ...] = ()
    rerolls: tuple[Group, ...] = ()

    @property
    def done(self) -> bool:
        return not self.pending

    def group_of(self, player_id: str) -> Group | None:
        return next((g for g in self.pending if player_id in g.players), None)


def start(totals: Mapping[str, int]) -> Scoring:
    """The game's places from its totals, with every tie at stake left to a reroll."""
    places = competition_places(totals)
    runs: dict[int, list[str]] = {}
    for pid, place in places.items():
        runs.setdefault(place, []).append(pid)
    pending = tuple(
        Group.tied(place, run)
        for place, run in sorted(runs.items())
        if len(run) > 1 and at_stake(place)
    )
    waiting = {pid for group in pending for pid in group.players}
    decided = {pid: place for pid, place in places.items() if pid not in waiting}
    return Scoring(dict(totals), decided, pending)


def roll(scoring: Scoring, player_id: str, dice: Dice) -> Scoring:
    """`player_id`'s reroll; a group whose last roll this is resolves at once.

    The caller has checked that the player is in a pending group and has not rolled."""
    group = scoring.group_of(player_id)
    assert group is not None
    index = group.players.index(player_id)
    rolled = replace(group, rolls=(*group.rolls[:index], dice, *group.rolls[index + 1 :]))
    others = tuple(g for g in scoring.pending if g is not group)
    if not rolled.complete:
        pending = tuple(sorted((*others, rolled), key=lambda g: g.places[0]))
        return replace(scoring, pending=pending)
    placed, again = resolve(rolled)
    return replace(
        scoring,
        places={**scoring.places, **placed},
        pending=tuple(sorted((*others, *again), key=lambda g: g.places[0])),
        rerolls=(*scoring.rerolls, rolled),
    )


def points_halves(place: int | None) -> int:
    """A place's points, in halves: 0 below 5th and for a player who did not play."""
    if place is None or place > SCORED_PLACES:
        return 0
    return POINTS_HALVES[place - 1]


@dataclass(frozen=True, slots=True)
class Standing:
    """One player's line of the overall table (points in halves)."""

    player_id: str
    points: tuple[int, ...]
    bonus: int
    total: int
    rank: int


def bonus_halves(player_id: str, games: int, results: Sequence[Mapping[str, int | None]]) -> int:
    """3 points for 1st in every game, once every game is played, when there are 2 or more."""
    if games < BONUS_MIN_GAMES or len(results) < games:
        return 0
    return BONUS_HALVES if all(r.get(player_id) == 1 for r in results) else 0


def standings(
    player_ids: Iterable[str],
    results: Sequence[Mapping[str, int | None]],
    games: int,
    finished: bool,
) -> list[Standing]:
    """Every player, best total first (ties in the order given), with competition ranks.

    `results` holds each scored game's places (a missing or null place scores 0)."""
    lines = []
    for pid in player_ids:
        points = tuple(points_halves(places.get(pid)) for places in results)
        bonus = bonus_halves(pid, games, results) if finished else 0
        lines.append((pid, points, bonus, sum(points) + bonus))
    ranks = competition_places({pid: total for pid, _, _, total in lines})
    ordered = sorted(lines, key=lambda line: -line[3])
    return [Standing(pid, pts, bonus, total, ranks[pid]) for pid, pts, bonus, total in ordered]


def winners(table: Sequence[Standing], finished: bool) -> list[str]:
    """Everyone with the top total once the tournament is finished; nobody before."""
    if not finished or not table:
        return []
    return [line.player_id for line in table if line.total == table[0].total]
