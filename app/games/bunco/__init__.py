"""Bunco as a game of this server: its rules, its create options, its commands.

pydantic reads the socket's JSON strictly at the edge (`Game.parse`): a `table` that
is not an integer or dice that are not a list of integers are `bad_message` there;
the values (three dice, each 1..6) are checked by the rules, in the contract's order.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from app.config import Settings
from app.games.bunco import scoresheet
from app.games.bunco.rules import BELL_RANGE, THREE_RANGE, BuncoRules, Ring, Roll
from app.games.common import Join, Kick, Start
from app.games.registry import Game

MAX_SETS = 10


class CreateBunco(BaseModel):
    model_config = ConfigDict(strict=True, extra="ignore")
    game: Literal["bunco"] = "bunco"
    sets: Annotated[int, Field(ge=1, le=MAX_SETS)] = 1
    roll_entry: Literal["virtual", "roller", "banker"] = "virtual"
    # house rules (extensions; absent: the seed's rules, and the create event as before)
    bell_at: Annotated[int, Field(ge=BELL_RANGE[0], le=BELL_RANGE[1])] | None = None
    three_of_a_kind: Annotated[int, Field(ge=THREE_RANGE[0], le=THREE_RANGE[1])] | None = None
    movement: Literal["seed", "common"] | None = None


class CreateBuncoInGroup(CreateBunco):
    """A night the server creates from a group (`parent`), which hears its result."""

    parent: str
    group: bool


def make_game(settings: Settings) -> Game:
    return Game(
        name="bunco",
        title="Bunco",
        rules=BuncoRules(),
        options=CreateBunco,
        server_options=CreateBuncoInGroup,
        commands=(Start, Roll, Ring, Kick),
        server_commands=(Join,),
        scoresheet=scoresheet.rows,
        draws=lambda options: True,  # the seating by lot, whatever the roll entry
    )
