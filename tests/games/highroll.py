"""A toy game that lives only in the tests: the highest roll of three dice wins.

It exists to prove the seam: it is added as this one module (rules, options,
commands, `make_game`) and the setting `BANKIT_GAMES`, with no change to the room,
the bus or the endpoints. Its `rematch` proves effects: the finished room creates
a new room with the same players seated (by its `create` event) and is told the new
room's code.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict

from app.config import Settings
from app.games.names import clean_name
from app.games.registry import Game
from app.games.seam import (
    NO_SEATING,
    STRICT,
    Chance,
    Connected,
    Effect,
    Event,
    RuleError,
    Seating,
    Sender,
    UndoPolicy,
)


@dataclass(frozen=True, slots=True)
class Start:
    __pydantic_config__: ClassVar[Any] = STRICT
    type: Literal["start"]


@dataclass(frozen=True, slots=True)
class Roll:
    __pydantic_config__: ClassVar[Any] = STRICT
    type: Literal["roll"]


@dataclass(frozen=True, slots=True)
class Rematch:
    __pydantic_config__: ClassVar[Any] = STRICT
    type: Literal["rematch"]


@dataclass(frozen=True, slots=True)
class Join:
    player_id: str
    name: str
    type: Literal["join"] = "join"


@dataclass(frozen=True, slots=True)
class Spawned:
    effect: str
    code: str
    type: Literal["spawned"] = "spawned"


@dataclass(frozen=True, slots=True)
class HighRollState:
    status: str = "lobby"
    players: tuple[tuple[str, str], ...] = ()  # (id, name)
    rolls: tuple[tuple[str, tuple[int, ...]], ...] = ()
    rematches: int = 0
    next_code: str | None = None


class HighRollRules:
    name = "highroll"
    creator = "banker"
    undo = UndoPolicy(
        roles=frozenset({"banker"}),
        events=frozenset({"roll"}),
        nothing_left="No roll to take back.",
        not_allowed="Only the banker can undo.",
    )

    def create(self, options: Mapping[str, Any]) -> HighRollState:
        seats = tuple((seat["player_id"], seat["name"]) for seat in options.get("seats") or ())
        return HighRollState(players=seats)

    def decide(self, state: HighRollState, sender: Sender, command: Any, chance: Chance) -> Event:
        match command:
            case Join(player_id=player_id, name=name):
                if state.status != "lobby":
                    raise RuleError("not_in_lobby", "The game has started.")
                return Event("join", {"player_id": player_id, "name": clean_name(name)})
            case Start():
                if sender.role != "banker":
                    raise RuleError("not_allowed", "Only the banker starts.")
                if state.status != "lobby":
                    raise RuleError("already_started", "Started already.")
                if not state.players:
                    raise RuleError("not_enough_players", "Nobody to play.")
                return Event("start", {})
            case Roll():
                if sender.role != "player":
                    raise RuleError("not_allowed", "Players roll.")
                if state.status != "playing":
                    raise RuleError("not_started", "Not playing.")
                if any(pid == sender.player_id for pid, _ in state.rolls):
                    raise RuleError("already_rolled", "One roll each.")
                return Event("roll", {"player_id": sender.player_id, "dice": list(chance.dice(3))})
            case Rematch():
                if sender.role != "banker":
                    raise RuleError("not_allowed", "Only the banker.")
                if state.status != "finished":
                    raise RuleError("not_finished", "Finish this one first.")
                seats = [{"player_id": pid, "name": name} for pid, name in state.players]
                effect = Effect(
                    "create_room",
                    f"rematch-{state.rematches + 1}",
                    {"game": "highroll", "options": {}, "seats": seats},
                )
                return Event("rematch", {}, effects=(effect,))
            case Spawned(code=code):
                if sender.role != "system":
                    raise RuleError("not_allowed", "Only the server.")
                return Event("spawned", {"code": code})
        raise RuleError("bad_message", "Unknown command.")

    def evolve(self, state: HighRollState, event: Event, seq: int) -> HighRollState:
        data = event.data
        if event.type == "join":
            return replace(state, players=(*state.players, (data["player_id"], data["name"])))
        if event.type == "start":
            return replace(state, status="playing")
        if event.type == "roll":
            rolls = (*state.rolls, (data["player_id"], tuple(data["dice"])))
            done = len(rolls) == len(state.players)
            return replace(state, rolls=rolls, status="finished" if done else "playing")
        if event.type == "rematch":
            return replace(state, rematches=state.rematches + 1)
        if event.type == "spawned":
            return replace(state, next_code=data["code"])
        raise ValueError(event.type)

    def seating(self, event: Event) -> Seating:
        return Seating(seated=(event.data["player_id"],)) if event.type == "join" else NO_SEATING

    def view(self, state: HighRollState, connected: Connected) -> dict[str, Any]:
        rolls = dict(state.rolls)
        totals = {pid: sum(dice) for pid, dice in rolls.items()}
        top = max(totals.values()) if state.status == "finished" else None
        return {
            "game": "highroll",
            "status": state.status,
            "players": [
                {"id": pid, "name": name, "connected": connected(pid), "roll": rolls.get(pid)}
                for pid, name in state.players
            ],
            "winners": [pid for pid, total in totals.items() if total == top],
            "next_code": state.next_code,
        }

    def player_ids(self, state: HighRollState) -> list[str]:
        return [pid for pid, _ in state.players]

    def finished(self, state: HighRollState) -> bool:
        return state.status == "finished"

    def report(self, state: HighRollState) -> None:
        """Nothing to tell a parent: this game is never created by another room."""
        return None


class CreateHighRoll(BaseModel):
    model_config = ConfigDict(strict=True, extra="ignore")
    game: Literal["highroll"] = "highroll"


class Seat(BaseModel):
    player_id: str
    name: str


class CreateRematch(CreateHighRoll):
    """A rematch, made by the server: seated from its `create` event."""

    parent: str
    seats: list[Seat] = []


def make_game(settings: Settings) -> Game:
    return Game(
        name="highroll",
        title="High roll",
        rules=HighRollRules(),
        options=CreateHighRoll,
        server_options=CreateRematch,
        commands=(Start, Roll, Rematch),
        server_commands=(Join, Spawned),
    )
