"""BANK! as a game of this server: its rules, its create options, its commands."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from app.config import Settings
from app.games import Game
from app.rules.bank import MAX_ROUNDS, AddBanker, Bank, BankRules, Join, Kick, Lock, Roll, Start


class CreateBank(BaseModel):
    model_config = ConfigDict(strict=True, extra="ignore")
    game: Literal["bank"] = "bank"
    rounds: Annotated[int, Field(ge=1, le=MAX_ROUNDS)] = 20
    roll_entry: Literal["banker", "roller", "virtual"] = "banker"


class TableLink(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid")
    game: Annotated[int, Field(ge=1)]
    table: Annotated[int, Field(ge=1)]


class CreateTable(CreateBank):
    """A tournament's table room: created by the server only (a `create_room` effect)."""

    parent: str
    tournament: TableLink


def make_game(settings: Settings) -> Game:
    return Game(
        name="bank",
        title="BANK!",
        rules=BankRules(settings.max_players),
        options=CreateBank,
        server_options=CreateTable,
        commands=(Start, Roll, Bank, Kick),
        server_commands=(Join, Lock, AddBanker),
    )
