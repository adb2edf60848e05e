"""BANK! as a game of this server: its rules, its create options, its commands."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from app.config import Settings
from app.games.bank.rules import (
    MAX_ROUNDS,
    AddBanker,
    Bank,
    BankRules,
    Join,
    Kick,
    Lock,
    PlayAgain,
    Roll,
    Spawned,
    Start,
    Unbank,
)
from app.games.common import BANK_HOUSE_RULES, virtual_rolls
from app.games.registry import Game

HOUSE = BANK_HOUSE_RULES  # (lowest, highest, seed's) of each house rule
SafeRolls = Annotated[int, Field(ge=HOUSE["safe_rolls"][0], le=HOUSE["safe_rolls"][1])]
SevenPoints = Annotated[int, Field(ge=HOUSE["seven_points"][0], le=HOUSE["seven_points"][1])]
MinBank = Annotated[int, Field(ge=HOUSE["min_bank"][0], le=HOUSE["min_bank"][1])]


class CreateBank(BaseModel):
    model_config = ConfigDict(strict=True, extra="ignore")
    game: Literal["bank"] = "bank"
    rounds: Annotated[int, Field(ge=1, le=MAX_ROUNDS)] = 20
    roll_entry: Literal["banker", "roller", "virtual"] = "banker"
    # house rules (extensions; absent: the seed's rules, and the create event as before)
    safe_rolls: SafeRolls | None = None
    seven_points: SevenPoints | None = None
    min_bank: MinBank | None = None
    doubles: Literal["double", "double_add"] | None = None


class TableLink(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid")
    game: Annotated[int, Field(ge=1)]
    table: Annotated[int, Field(ge=1)]


class Seat(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid")
    player_id: str
    name: str


class CreateTable(CreateBank):
    """A room the server creates (a `create_room` effect): a tournament's table, or the
    next game of a room played again (`parent` is then that room; `no_phone`: its seats
    that have no phone; `seats`: its players, seated by its `create` event)."""

    parent: str
    tournament: TableLink | None = None
    no_phone: list[str] | None = None
    seats: list[Seat] | None = None
    group: bool | None = None  # started from a group (`parent`): reports its result there


def make_game(settings: Settings) -> Game:
    return Game(
        name="bank",
        title="BANK!",
        rules=BankRules(settings.max_players),
        options=CreateBank,
        server_options=CreateTable,
        commands=(Start, Roll, Bank, Unbank, Kick, PlayAgain),
        server_commands=(Join, Lock, Spawned, AddBanker),
        draws=virtual_rolls,
    )
