"""A member card: a group member's name, in a record of its own so that leaving the
group deletes it (app/games/group). A room of the game "member" (collection "members",
never offered to create by hand): its one event is `create` ({name, group}); its code
is the member's id in the group. It takes no command."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict

from app.config import Settings
from app.games.names import clean_name
from app.games.registry import Game
from app.games.seam import (
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


@dataclass(frozen=True, slots=True)
class Card:
    name: str
    group: str


@dataclass(frozen=True, slots=True)
class Nothing:
    """A card takes no command from a socket (a command type no socket needs)."""

    type: Literal["none"]
    __pydantic_config__: ClassVar[Any] = STRICT


@dataclass(frozen=True, slots=True)
class Touch:
    """Server: the card's group is in use (a `touch` event keeps the card as long)."""

    type: Literal["touch"]
    __pydantic_config__: ClassVar[Any] = STRICT


class CreateCard(BaseModel):
    model_config = ConfigDict(strict=True, extra="ignore")
    game: Literal["member"] = "member"
    name: str
    group: str


class MemberRules:
    name = "member"
    creator = "member"
    undo = UndoPolicy(frozenset(), frozenset(), "Nothing to undo.", "A card has no undo.")

    def create(self, options: Mapping[str, Any]) -> Card:
        return Card(clean_name(str(options["name"])), str(options["group"]))

    def decide(self, state: Card, sender: Sender, command: Any, chance: Chance) -> Event:
        if isinstance(command, Touch) and sender.role == SYSTEM:
            return Event("touch", {})
        raise RuleError("not_allowed", "A member card takes no command.")

    def evolve(self, state: Card, event: Event, seq: int) -> Card:
        return state

    def seating(self, event: Event) -> Seating:
        return NO_SEATING

    def view(self, state: Card, connected: Connected) -> dict[str, Any]:
        return {"game": "member", "name": state.name, "group": state.group}

    def player_ids(self, state: Card) -> list[str]:
        return []

    def finished(self, state: Card) -> bool:
        return False

    def report(self, state: Card) -> None:
        return None


def make_game(settings: Settings) -> Game:
    return Game(
        name="member",
        title="Member card",
        rules=MemberRules(),
        options=CreateCard,
        commands=(Nothing,),
        server_commands=(Touch,),
        collection="members",
        offered=False,
        keep_seconds=settings.group_idle_seconds,
    )
