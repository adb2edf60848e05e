"""A group's season as a game of this server: a room whose games are BANK rooms, Bunco
nights and tournaments, and whose log records their results (app/games/group/rules.py)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

from app.config import Settings
from app.games.group.rules import (
    CloseSeason,
    GroupRules,
    JoinMember,
    Leave,
    Report,
    Spawned,
    StartGame,
)
from app.games.registry import Game


class CreateGroup(BaseModel):
    model_config = ConfigDict(strict=True, extra="ignore")
    game: Literal["group"] = "group"
    name: str


def make_game(settings: Settings) -> Game:
    from app.games.group.routes import router  # HTTP only where the server loads it

    return Game(
        name="group",
        title="Group (a season of game nights)",
        rules=GroupRules(),
        options=CreateGroup,
        commands=(CloseSeason,),
        server_commands=(JoinMember, Leave, StartGame, Spawned, Report),
        collection="groups",
        routes=router,
        offered=False,
        keep_seconds=settings.group_idle_seconds,
    )
