"""Desert Dynasty tournaments as a game of this server: a room whose games are BANK rooms."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from app.config import Settings
from app.games.common import Join, Kick, virtual_rolls
from app.games.registry import Game
from app.games.tournament import scoresheet
from app.games.tournament.rules import (
    Next,
    Reroll,
    Score,
    Spawned,
    TableStatus,
    TournamentRules,
)


class CreateTournament(BaseModel):
    model_config = ConfigDict(strict=True, extra="ignore")
    game: Literal["tournament"] = "tournament"
    games: Annotated[int, Field(ge=1, le=10)] = 4
    rounds: Annotated[int, Field(ge=1, le=100)] = 10
    roll_entry: Literal["banker", "roller", "virtual"] = "banker"
    # BANK house rules for every table (extensions; their bounds are checked by the rules)
    safe_rolls: int | None = None
    seven_points: int | None = None
    min_bank: int | None = None
    doubles: Literal["double", "double_add"] | None = None


class CreateTournamentInGroup(CreateTournament):
    """A tournament the server creates from a group (`parent`), which hears its result."""

    parent: str
    group: bool


def make_game(settings: Settings) -> Game:
    from app.games.tournament.routes import router  # HTTP only where the server loads it

    return Game(
        name="tournament",
        title="Tournament (Desert Dynasty)",
        rules=TournamentRules(settings.max_players),
        options=CreateTournament,
        server_options=CreateTournamentInGroup,
        commands=(Next, Score, Reroll, Kick),
        server_commands=(Join, TableStatus, Spawned),
        collection="tournaments",
        scoresheet=scoresheet.rows,
        routes=router,
        draws=virtual_rolls,
    )
