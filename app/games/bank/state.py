"""BANK!'s state and what each event does to it (the `evolve` half of the rules), pure.

Beside the scores, the state keeps what a late TV or a reload needs to show the round
so far (`rolls_now`, `banked_now`), how the last round ended (`RoundResult.rolls`,
`seven_seq`), and what an undo would take back now (`since_roll`: the latest roll and
every event after it, which is exactly what the room's generic undo drops).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from app.games.rendered import Renderings, renderings
from app.games.seam import Fairness, changed

SAFE_ROLLS = 3
SAFE_SEVEN = 70  # what a 7 adds during the safe rolls
Status = Literal["lobby", "playing", "finished"]
Dice = tuple[int, int]
Ending = Literal["seven", "all_banked"]


@dataclass(frozen=True, slots=True)
class HouseRules:
    """The table's own variants, chosen at create (the defaults are the seed's rules)."""

    safe_rolls: int = SAFE_ROLLS  # the first rolls of a round, on which a 7 adds
    seven_points: int = SAFE_SEVEN  # what a 7 adds during them
    min_bank: int | None = None  # no one may BANK while the BANK is below it
    doubles: Literal["double", "double_add"] = "double"  # from the first risky roll on

    def differences(self) -> dict[str, int | str]:
        """The variants that differ from the seed's rules (the state's `house_rules`, and
        the options "Play again" and a tournament's tables carry)."""
        return {
            name: value
            for name in ("safe_rolls", "seven_points", "min_bank", "doubles")
            if (value := getattr(self, name)) != getattr(SEED_RULES, name)
        }


SEED_RULES = HouseRules()


@dataclass(frozen=True, slots=True)
class TableOf:
    """A tournament table room: which tournament, game and table it is."""

    tournament: str
    game: int
    table: int


@dataclass(frozen=True)  # copied by `changed`; rendered once (bank/view.py)
class Player:
    id: str
    name: str
    score: int = 0
    banked: bool = False
    has_phone: bool = True  # False: the banker seated them without a phone (banks for them)
    waiting: bool = False  # seated mid-round: may BANK from the next roll on
    renderings: Renderings | None = renderings()


@dataclass(frozen=True, slots=True)
class LastRoll:
    dice: Dice | None  # None: the banker entered a total
    by: str
    seq: int
    total: int


@dataclass(frozen=True, slots=True)  # rendered once (bank/view.py)
class RollRecord:
    """One roll of a round and what it did to the BANK (None: the 7 that ended it)."""

    seq: int
    by: str
    dice: Dice | None
    total: int
    bank_after: int | None
    renderings: Renderings | None = renderings()


@dataclass(frozen=True, slots=True)  # rendered once (bank/view.py)
class Banking:
    player_id: str
    amount: int
    seq: int
    by_banker: bool = False  # the banker banked on the player's behalf (unbank may take it back)
    renderings: Renderings | None = renderings()


@dataclass(frozen=True, slots=True)  # rendered once (bank/view.py)
class RoundResult:
    round: int
    ended_by: Ending
    bank: int
    banked: tuple[Banking, ...]
    rolls: tuple[RollRecord, ...] = ()
    seven_seq: int | None = None
    renderings: Renderings | None = renderings()


@dataclass(frozen=True, slots=True)  # rendered once (bank/view.py)
class Change:
    """An event as a correction names it: a roll (amount = its total), a BANK, an unbank, a
    late seat."""

    type: Literal["roll", "bank", "unbank", "join"]
    seq: int
    player_id: str
    amount: int = 0
    dice: Dice | None = None
    name: str = ""
    renderings: Renderings | None = renderings()


@dataclass(frozen=True, slots=True)
class Correction:
    """What the last correction took back; `seq` is that of the first event taken back."""

    type: Literal["undo", "unbank"]
    seq: int
    took_back: tuple[Change, ...]


@dataclass(frozen=True)  # copied by `changed` at every event
class BankState:
    rounds: int
    roll_entry: str
    max_players: int = 50
    status: Status = "lobby"
    round: int = 0
    roll_count: int = 0
    bank: int = 0
    turn: str | None = None
    last_roll: LastRoll | None = None
    players: tuple[Player, ...] = ()
    banked_now: tuple[Banking, ...] = ()
    rolls_now: tuple[RollRecord, ...] = ()
    rounds_log: tuple[RoundResult, ...] = ()
    since_roll: tuple[Change, ...] = ()
    correction: Correction | None = None
    table: TableOf | None = None
    locked: bool = False
    again: bool = False  # play_again accepted: the next game is being made
    next_game: str | None = None
    previous_game: str | None = None
    no_phone: frozenset[str] = frozenset()  # seats of a played-again game without a phone
    house: HouseRules = SEED_RULES
    fair: Fairness | None = None  # the room's committed dice (virtual rolls)
    in_group: bool = False  # started from a group: reports its result there (extension)

    def player(self, player_id: str) -> Player | None:
        for player in self.players:
            if player.id == player_id:
                return player
        return None

    @property
    def closed(self) -> bool:
        """Undo cannot reach back any more: scored by a tournament, or played again."""
        return self.locked or self.again


def roll_value(
    bank: int, roll_number: int, dice: Dice, house: HouseRules = SEED_RULES
) -> int | None:
    """The BANK after roll number `roll_number` (1-based), or None when a 7 ends the round."""
    return total_value(bank, roll_number, dice[0] + dice[1], dice[0] == dice[1], house)


def total_value(
    bank: int, roll_number: int, total: int, doubles: bool, house: HouseRules = SEED_RULES
) -> int | None:
    """`roll_value` for a roll known by its total (a total entered alone is never doubles)."""
    if roll_number <= house.safe_rolls:
        return bank + (house.seven_points if total == 7 else total)
    if total == 7:
        return None
    if doubles:
        return bank * 2 + (total if house.doubles == "double_add" else 0)
    return bank + total


# -- evolve helpers ------------------------------------------------------------------------
# They run at every event: what they make per seat is a list (one call), not a generator
# (resumed once per seat), and a seat is looked for with a plain loop.
def next_active(state: BankState, after: str, players: tuple[Player, ...]) -> str | None:
    """The first player after `after` in seating order who has not banked."""
    count = len(players)
    start = -1
    for index, player in enumerate(players):
        if player.id == after:
            start = index
            break
    for step in range(1, count + 1):
        candidate = players[(start + step) % count]
        if not candidate.banked:
            return candidate.id
    return None


def noted(state: BankState, change: Change) -> tuple[Change, ...]:
    """`since_roll` with one more event (nothing to note before the game's first roll)."""
    return (*state.since_roll, change) if state.since_roll else ()


def _ready(players: tuple[Player, ...]) -> tuple[Player, ...]:
    """Everyone seated mid-round may BANK now; the same tuple when nobody waited (the
    view's seats are then not rendered again: bank/view.py)."""
    for player in players:
        if player.waiting:
            return tuple([changed(p, waiting=False) if p.waiting else p for p in players])
    return players


def after_roll(state: BankState, dice: Dice | None, total: int, roller: str, seq: int) -> BankState:
    number = state.roll_count + 1
    doubles = dice is not None and dice[0] == dice[1]
    value = total_value(state.bank, number, total, doubles, state.house)
    players = _ready(state.players)
    rolled = {
        "roll_count": number,
        "last_roll": LastRoll(dice, roller, seq, total),
        "rolls_now": (*state.rolls_now, RollRecord(seq, roller, dice, total, value)),
        "since_roll": (Change("roll", seq, roller, total, dice),),
        "correction": None,
        "players": players,
    }
    if value is None:
        return end_round(changed(state, **rolled), "seven", roller, seq)
    return changed(state, **rolled, bank=value, turn=next_active(state, roller, players))


def after_bank(
    state: BankState, player_id: str, amount: int, seq: int, by_banker: bool
) -> BankState:
    players = tuple(
        [
            changed(p, score=p.score + amount, banked=True) if p.id == player_id else p
            for p in state.players
        ]
    )
    banked = {
        "players": players,
        "banked_now": (*state.banked_now, Banking(player_id, amount, seq, by_banker)),
        "since_roll": noted(state, Change("bank", seq, player_id, amount)),
    }
    if all([p.banked for p in players]):
        last_roller = state.last_roll.by if state.last_roll else ""
        return end_round(changed(state, **banked), "all_banked", last_roller)
    if state.turn == player_id:
        return changed(state, **banked, turn=next_active(state, player_id, players))
    return changed(state, **banked)


def after_unbank(
    state: BankState, player_id: str, amount: int, bank_seq: int, seq: int
) -> BankState:
    """The banker's BANK for `player_id` never happened; the rolls after it stand."""
    players = tuple(
        [
            changed(p, score=p.score - amount, banked=False) if p.id == player_id else p
            for p in state.players
        ]
    )
    taken = Change("bank", bank_seq, player_id, amount)
    return changed(
        state,
        players=players,
        banked_now=tuple(b for b in state.banked_now if b.seq != bank_seq),
        since_roll=noted(state, Change("unbank", seq, player_id, amount)),
        correction=Correction("unbank", bank_seq, (taken,)),
    )


def after_join(state: BankState, player_id: str, name: str, phone: bool, seq: int) -> BankState:
    """A seat in the lobby, or a late one (at the end of the table, in the current round).
    An undo keeps a late seat (`BankRules.undo.keeps`), so it is not noted in `since_roll`."""
    late = state.status == "playing"
    player = Player(player_id, name, has_phone=phone, waiting=late and state.roll_count > 0)
    return changed(state, players=(*state.players, player))


def end_round(
    state: BankState, ended_by: Ending, last_roller: str, seven_seq: int | None = None
) -> BankState:
    result = RoundResult(
        state.round, ended_by, state.bank, state.banked_now, state.rolls_now, seven_seq
    )
    players = tuple([changed(p, banked=False, waiting=False) for p in state.players])
    ended = changed(
        state,
        players=players,
        rounds_log=(*state.rounds_log, result),
        banked_now=(),
        rolls_now=(),
        roll_count=0,
        bank=0,
    )
    if state.round >= state.rounds:
        return changed(ended, status="finished", turn=None)
    return changed(ended, round=state.round + 1, turn=next_active(ended, last_roller, players))
