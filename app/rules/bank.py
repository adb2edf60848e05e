"""The rules of BANK! (ThunderHive Games), pure.

Choices where the rule sheet is silent (also in docs/protocol.md):
- Round 1 is opened by the first player to join. Every later round is opened by the
  player seated after the one who made the previous round's last roll: the dice keep
  going round the table, as they do at a real one.
- After a BANK by the player whose turn it is, the turn passes to the next player
  who has not banked.
- After the game ends, `last_roll` keeps the roll that ended it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, ClassVar, Literal

from app.rules.base import (
    NO_SEATING,
    STRICT,
    SYSTEM,
    Chance,
    Connected,
    Event,
    RuleError,
    Seating,
    Sender,
    UndoPolicy,
)
from app.rules.names import MAX_NAME, clean_name, name_taken

SAFE_ROLLS = 3
ROLL_ENTRIES = ("banker", "roller", "virtual")
MAX_ROUNDS = 100
Status = Literal["lobby", "playing", "finished"]
Dice = tuple[int, int]

__all__ = ["MAX_NAME", "BankRules", "BankState", "clean_name", "roll_value"]


# -- commands (validated from the wire by app/games/bank.py) -----------------------------
@dataclass(frozen=True, slots=True)
class Start:
    __pydantic_config__: ClassVar[Any] = STRICT
    type: Literal["start"]


@dataclass(frozen=True, slots=True)
class Roll:
    __pydantic_config__: ClassVar[Any] = STRICT
    type: Literal["roll"]
    dice: list[int] | None = None


@dataclass(frozen=True, slots=True)
class Bank:
    __pydantic_config__: ClassVar[Any] = STRICT
    type: Literal["bank"]
    player_id: str | None = None


@dataclass(frozen=True, slots=True)
class Kick:
    __pydantic_config__: ClassVar[Any] = STRICT
    type: Literal["kick"]
    player_id: str


@dataclass(frozen=True, slots=True)
class Join:
    """Built by the server for `POST /api/rooms/{code}/players`, never read from a socket."""

    player_id: str
    name: str
    type: Literal["join"] = "join"


@dataclass(frozen=True, slots=True)
class Lock:
    """Sent by the server when a tournament has scored this table: undo stops here."""

    type: Literal["lock"] = "lock"


@dataclass(frozen=True, slots=True)
class AddBanker:
    """Sent by the server for a tournament table's banker link: the envelope's token
    becomes one more banker token of this table room (its seating binds it)."""

    type: Literal["add_banker"] = "add_banker"


BankCommand = Start | Roll | Bank | Kick | Join | Lock | AddBanker


@dataclass(frozen=True, slots=True)
class TableOf:
    """A tournament table room: which tournament, game and table it is."""

    tournament: str
    game: int
    table: int


@dataclass(frozen=True, slots=True)
class Player:
    id: str
    name: str
    score: int = 0
    banked: bool = False


@dataclass(frozen=True, slots=True)
class LastRoll:
    dice: Dice
    by: str
    seq: int


@dataclass(frozen=True, slots=True)
class Banking:
    player_id: str
    amount: int
    seq: int


@dataclass(frozen=True, slots=True)
class RoundResult:
    round: int
    ended_by: Literal["seven", "all_banked"]
    bank: int
    banked: tuple[Banking, ...]


@dataclass(frozen=True, slots=True)
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
    rounds_log: tuple[RoundResult, ...] = ()
    table: TableOf | None = None
    locked: bool = False

    def player(self, player_id: str) -> Player | None:
        return next((p for p in self.players if p.id == player_id), None)


def roll_value(bank: int, roll_number: int, dice: Dice) -> int | None:
    """The BANK after roll number `roll_number` (1-based), or None when a 7 ends the round."""
    total = dice[0] + dice[1]
    if roll_number <= SAFE_ROLLS:
        return bank + (70 if total == 7 else total)
    if total == 7:
        return None
    if dice[0] == dice[1]:
        return bank * 2
    return bank + total


class BankRules:
    """BANK! behind the `Rules` seam."""

    name = "bank"
    creator = "banker"
    undo = UndoPolicy(
        roles=frozenset({"banker"}),
        events=frozenset({"roll"}),
        nothing_left="There is no roll to take back.",
        not_allowed="Only the banker can undo.",
        barriers=frozenset({"lock"}),
        barred=("game_over", "The tournament has scored this game: it can no longer change."),
    )

    def __init__(self, max_players: int = 50) -> None:
        self.max_players = max_players

    # -- create ------------------------------------------------------------------
    def create(self, options: Mapping[str, Any]) -> BankState:
        rounds = options.get("rounds", 20)
        roll_entry = options.get("roll_entry", "banker")
        if type(rounds) is not int or not 1 <= rounds <= MAX_ROUNDS:
            raise RuleError("bad_rounds", "rounds is a whole number from 1 to 100.")
        if roll_entry not in ROLL_ENTRIES:
            raise RuleError("bad_roll_entry", "roll_entry is banker, roller or virtual.")
        link = options.get("tournament")
        table = None
        if link is not None:  # only the server creates table rooms (app/games/bank.py)
            table = TableOf(str(options["parent"]), int(link["game"]), int(link["table"]))
        return BankState(
            rounds=rounds, roll_entry=roll_entry, max_players=self.max_players, table=table
        )

    # -- decide ------------------------------------------------------------------
    def decide(
        self, state: BankState, sender: Sender, command: BankCommand, chance: Chance
    ) -> Event:
        match command:
            case Roll(dice=dice):
                return self._decide_roll(state, sender, dice, chance)
            case Bank(player_id=player_id):
                return self._decide_bank(state, sender, player_id)
            case Start():
                return self._decide_start(state, sender)
            case Join(player_id=player_id, name=name):
                return self._decide_join(state, sender, player_id, name)
            case Kick(player_id=player_id):
                return self._decide_kick(state, sender, player_id)
            case Lock():
                if sender.role != SYSTEM:
                    raise RuleError("not_allowed", "Only the server closes a tournament table.")
                return Event("lock", {})
            case AddBanker():
                if sender.role != SYSTEM or state.table is None:
                    raise RuleError("not_allowed", "Only a tournament hands out table bankers.")
                return Event("banker", {})
        raise RuleError("bad_message", f"Unknown command {command!r}.")

    def _decide_roll(
        self, state: BankState, sender: Sender, dice: list[int] | None, chance: Chance
    ) -> Event:
        if dice is not None and (len(dice) != 2 or not all(1 <= d <= 6 for d in dice)):
            raise RuleError("bad_message", "dice: two integers from 1 to 6, e.g. [3, 4].")
        virtual = state.roll_entry == "virtual"
        if dice is None and not virtual:
            raise RuleError("bad_message", "A roll needs its dice, e.g. [3, 4].")
        if sender.role == "player":
            if state.roll_entry == "banker":
                raise RuleError("not_allowed", "In this game the banker enters the rolls.")
            if virtual and dice is not None:
                raise RuleError("not_allowed", "In this game the server rolls the dice.")
        elif sender.role != "banker":
            raise RuleError("not_allowed", "Spectators cannot roll.")
        _require_playing(state)
        if sender.role == "player":
            me = state.player(sender.player_id or "")
            if me is not None and me.banked:
                raise RuleError("already_banked", "You banked this round: you sit it out.")
            if state.turn != sender.player_id:
                raise RuleError("not_your_turn", "It is not your turn to roll.")
        rolled = list(dice) if dice is not None else list(chance.dice(2))
        return Event("roll", {"dice": rolled, "player_id": state.turn})

    def _decide_bank(self, state: BankState, sender: Sender, player_id: str | None) -> Event:
        if sender.role == "banker":
            if player_id is None:
                raise RuleError("bad_message", "The banker banks for a player: give player_id.")
            target = player_id
        elif sender.role == "player" and sender.player_id is not None:
            if player_id is not None and player_id != sender.player_id:
                raise RuleError("not_allowed", "A player banks only for itself.")
            target = sender.player_id
        else:
            raise RuleError("not_allowed", "Spectators cannot bank.")
        player = state.player(target)
        if player is None:
            raise RuleError("unknown_player", "No such player in this room.")
        if state.status == "finished" and state.rounds_log[-1].ended_by == "seven":
            raise RuleError("round_over", "Too late: the 7 came first.")
        _require_playing(state)
        if state.roll_count == 0:
            raise RuleError("round_over", "No round is live: wait for the first roll.")
        if player.banked:
            raise RuleError("already_banked", f"{player.name} already banked this round.")
        return Event("bank", {"player_id": target, "amount": state.bank})

    def _decide_start(self, state: BankState, sender: Sender) -> Event:
        if sender.role != "banker":
            raise RuleError("not_allowed", "Only the banker starts the game.")
        if state.status != "lobby":
            raise RuleError("already_started", "The game has already started.")
        if not state.players:
            raise RuleError("not_enough_players", "A game needs at least one player.")
        return Event("start", {})

    def _decide_join(
        self, state: BankState, sender: Sender, player_id: str, raw_name: str
    ) -> Event:
        name = clean_name(raw_name)
        if state.table is not None and sender.role != SYSTEM:
            raise RuleError("not_in_lobby", "This is a tournament table: join the tournament.")
        if state.status != "lobby":
            raise RuleError("not_in_lobby", "The game has started: players join in the lobby.")
        if name_taken(name, [p.name for p in state.players]):
            raise RuleError("name_taken", f"{name!r} is taken in this room.")
        if len(state.players) >= state.max_players:
            raise RuleError("room_full", f"A room seats at most {state.max_players} players.")
        return Event("join", {"player_id": player_id, "name": name})

    def _decide_kick(self, state: BankState, sender: Sender, player_id: str) -> Event:
        if sender.role != "banker":
            raise RuleError("not_allowed", "Only the banker removes players.")
        if state.table is not None:
            raise RuleError("not_allowed", "The tournament seats this table.")
        if state.player(player_id) is None:
            raise RuleError("unknown_player", "No such player in this room.")
        if state.status != "lobby":
            raise RuleError("not_in_lobby", "Players can be removed only in the lobby.")
        return Event("kick", {"player_id": player_id})

    # -- evolve ------------------------------------------------------------------
    def evolve(self, state: BankState, event: Event, seq: int) -> BankState:
        data = event.data
        if event.type == "roll":
            dice: Dice = (data["dice"][0], data["dice"][1])
            return _after_roll(state, dice, data["player_id"], seq)
        if event.type == "bank":
            return _after_bank(state, data["player_id"], data["amount"], seq)
        if event.type == "join":
            return replace(state, players=(*state.players, Player(data["player_id"], data["name"])))
        if event.type == "kick":
            kept = tuple(p for p in state.players if p.id != data["player_id"])
            return replace(state, players=kept)
        if event.type == "start":
            return replace(state, status="playing", round=1, turn=state.players[0].id)
        if event.type == "lock":
            return replace(state, locked=True)
        if event.type == "banker":  # a token, not the game: nothing of the state changes
            return state
        raise ValueError(f"BANK! has no event {event.type!r}")

    def seating(self, event: Event) -> Seating:
        if event.type == "join":
            return Seating(seated=(event.data["player_id"],))
        if event.type == "kick":
            return Seating(unseated=(event.data["player_id"],))
        if event.type == "banker":  # the token that came with it opens the banker's seat
            return Seating(seated=(self.creator,))
        return NO_SEATING

    def finished(self, state: BankState) -> bool:
        return state.status == "finished"

    def report(self, state: BankState) -> Mapping[str, Any] | None:
        """A tournament table tells its tournament its status, and its totals once done."""
        if state.table is None:
            return None
        if state.status != "finished":
            return {"status": state.status}
        return {"status": "finished", "totals": {p.id: p.score for p in state.players}}

    # -- view ----------------------------------------------------------------------
    def view(self, state: BankState, connected: Connected) -> dict[str, Any]:
        winners: list[str] = []
        if state.status == "finished":
            top = max(p.score for p in state.players)
            winners = [p.id for p in state.players if p.score == top]
        last = state.last_roll
        return {
            "game": "bank",
            "status": state.status,
            "rounds": state.rounds,
            "round": state.round,
            "roll_count": state.roll_count,
            "bank": state.bank,
            "roll_entry": state.roll_entry,
            "turn": state.turn,
            "last_roll": None
            if last is None
            else {"dice": list(last.dice), "by": last.by, "seq": last.seq},
            "players": [
                {
                    "id": p.id,
                    "name": p.name,
                    "score": p.score,
                    "banked": p.banked,
                    "connected": connected(p.id),
                }
                for p in state.players
            ],
            "rounds_log": [
                {
                    "round": r.round,
                    "ended_by": r.ended_by,
                    "bank": r.bank,
                    "banked": [
                        {"player_id": b.player_id, "amount": b.amount, "seq": b.seq}
                        for b in r.banked
                    ],
                }
                for r in state.rounds_log
            ],
            "winners": winners,
            **_tournament_view(state.table),
        }

    def player_ids(self, state: BankState) -> list[str]:
        return [p.id for p in state.players]


def _tournament_view(table: TableOf | None) -> dict[str, Any]:
    if table is None:
        return {}
    return {"tournament": {"code": table.tournament, "game": table.game, "table": table.table}}


def _require_playing(state: BankState) -> None:
    if state.status == "lobby":
        raise RuleError("not_started", "The game has not started yet.")
    if state.status == "finished":
        raise RuleError("game_over", "The game is over.")


def _next_active(state: BankState, after: str, players: tuple[Player, ...]) -> str | None:
    """The first player after `after` in seating order who has not banked."""
    ids = [p.id for p in players]
    start = ids.index(after) if after in ids else -1
    for step in range(1, len(players) + 1):
        candidate = players[(start + step) % len(players)]
        if not candidate.banked:
            return candidate.id
    return None


def _after_roll(state: BankState, dice: Dice, roller: str, seq: int) -> BankState:
    number = state.roll_count + 1
    rolled = replace(state, roll_count=number, last_roll=LastRoll(dice, roller, seq))
    value = roll_value(state.bank, number, dice)
    if value is None:
        return _end_round(rolled, "seven", roller)
    return replace(rolled, bank=value, turn=_next_active(rolled, roller, rolled.players))


def _after_bank(state: BankState, player_id: str, amount: int, seq: int) -> BankState:
    players = tuple(
        replace(p, score=p.score + amount, banked=True) if p.id == player_id else p
        for p in state.players
    )
    banked = replace(
        state, players=players, banked_now=(*state.banked_now, Banking(player_id, amount, seq))
    )
    if all(p.banked for p in players):
        return _end_round(banked, "all_banked", state.last_roll.by if state.last_roll else "")
    if state.turn == player_id:
        return replace(banked, turn=_next_active(banked, player_id, players))
    return banked


def _end_round(
    state: BankState, ended_by: Literal["seven", "all_banked"], last_roller: str
) -> BankState:
    result = RoundResult(state.round, ended_by, state.bank, state.banked_now)
    players = tuple(replace(p, banked=False) for p in state.players)
    ended = replace(
        state,
        players=players,
        rounds_log=(*state.rounds_log, result),
        banked_now=(),
        roll_count=0,
        bank=0,
    )
    if state.round >= state.rounds:
        return replace(ended, status="finished", turn=None)
    return replace(ended, round=state.round + 1, turn=_next_active(ended, last_roller, players))
