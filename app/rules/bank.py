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

import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, Literal

from app.rules.base import Actor, Dice, Event, RuleError

SAFE_ROLLS = 3
MAX_NAME = 24
ROLL_ENTRIES = ("banker", "roller", "virtual")
Status = Literal["lobby", "playing", "finished"]


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


def clean_name(raw: str) -> str:
    """The stored form of a player's name, or RuleError `bad_name`."""
    name = raw.strip()
    if not 1 <= len(name) <= MAX_NAME:
        raise RuleError("bad_name", f"A name is 1 to {MAX_NAME} characters.")
    if any(unicodedata.category(ch) in ("Cc", "Cf", "Cs") for ch in name):
        raise RuleError("bad_name", "A name cannot hold control or invisible characters.")
    return name


class BankRules:
    """BANK! behind the `Rules` seam."""

    name = "bank"
    undoable = frozenset({"roll"})

    def __init__(self, max_players: int = 50) -> None:
        self.max_players = max_players

    # -- create ------------------------------------------------------------------
    def create(self, options: Mapping[str, Any]) -> BankState:
        rounds = options.get("rounds", 20)
        roll_entry = options.get("roll_entry", "banker")
        if type(rounds) is not int or not 1 <= rounds <= 100:
            raise RuleError("bad_rounds", "rounds is a whole number from 1 to 100.")
        if roll_entry not in ROLL_ENTRIES:
            raise RuleError("bad_roll_entry", "roll_entry is banker, roller or virtual.")
        return BankState(rounds=rounds, roll_entry=roll_entry, max_players=self.max_players)

    # -- decide ------------------------------------------------------------------
    def decide(
        self, state: BankState, actor: Actor, command: Mapping[str, Any], chance: Dice
    ) -> Event:
        kind = command["type"]
        if kind == "roll":
            return self._decide_roll(state, actor, command.get("dice"), chance)
        if kind == "bank":
            return self._decide_bank(state, actor, command.get("player_id"))
        if kind == "start":
            return self._decide_start(state, actor)
        if kind == "join":
            return self._decide_join(state, command["player_id"], command["name"])
        if kind == "kick":
            return self._decide_kick(state, actor, command["player_id"])
        raise RuleError("bad_message", f"Unknown command type {kind!r}.")

    def _decide_roll(
        self, state: BankState, actor: Actor, dice: list[int] | None, chance: Dice
    ) -> Event:
        virtual = state.roll_entry == "virtual"
        if dice is None and not virtual:
            raise RuleError("bad_message", "A roll needs its dice, e.g. [3, 4].")
        if actor.role == "player":
            if state.roll_entry == "banker":
                raise RuleError("not_allowed", "In this game the banker enters the rolls.")
            if virtual and dice is not None:
                raise RuleError("not_allowed", "In this game the server rolls the dice.")
        elif actor.role != "banker":
            raise RuleError("not_allowed", "Spectators cannot roll.")
        _require_playing(state)
        if actor.role == "player":
            me = state.player(actor.player_id or "")
            if me is not None and me.banked:
                raise RuleError("already_banked", "You banked this round: you sit it out.")
            if state.turn != actor.player_id:
                raise RuleError("not_your_turn", "It is not your turn to roll.")
        rolled: Dice = (dice[0], dice[1]) if dice is not None else chance
        return Event("roll", {"dice": list(rolled), "player_id": state.turn})

    def _decide_bank(self, state: BankState, actor: Actor, player_id: str | None) -> Event:
        if actor.role == "banker":
            if player_id is None:
                raise RuleError("bad_message", "The banker banks for a player: give player_id.")
            target = player_id
        elif actor.role == "player" and actor.player_id is not None:
            if player_id is not None and player_id != actor.player_id:
                raise RuleError("not_allowed", "A player banks only for itself.")
            target = actor.player_id
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

    def _decide_start(self, state: BankState, actor: Actor) -> Event:
        if actor.role != "banker":
            raise RuleError("not_allowed", "Only the banker starts the game.")
        if state.status != "lobby":
            raise RuleError("already_started", "The game has already started.")
        if not state.players:
            raise RuleError("not_enough_players", "A game needs at least one player.")
        return Event("start", {})

    def _decide_join(self, state: BankState, player_id: str, raw_name: str) -> Event:
        name = clean_name(raw_name)
        if state.status != "lobby":
            raise RuleError("not_in_lobby", "The game has started: players join in the lobby.")
        folded = name.casefold()
        if any(p.name.casefold() == folded for p in state.players):
            raise RuleError("name_taken", f"{name!r} is taken in this room.")
        if len(state.players) >= state.max_players:
            raise RuleError("room_full", f"A room seats at most {state.max_players} players.")
        return Event("join", {"player_id": player_id, "name": name})

    def _decide_kick(self, state: BankState, actor: Actor, player_id: str) -> Event:
        if actor.role != "banker":
            raise RuleError("not_allowed", "Only the banker removes players.")
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
        raise ValueError(f"BANK! has no event {event.type!r}")

    # -- view ----------------------------------------------------------------------
    def view(self, state: BankState) -> dict[str, Any]:
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
                {"id": p.id, "name": p.name, "score": p.score, "banked": p.banked}
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
        }

    def player_ids(self, state: BankState) -> list[str]:
        return [p.id for p in state.players]


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
