"""The state object of a group (docs/protocol.md, "Groups"): members by id, the games
it started (each linking to its own log and fair dice), every season's lines and
standings. Names are not in it: `GET /api/groups/{code}` adds them from the cards."""

from __future__ import annotations

from typing import Any

from app.games.group.standings import season_lines, standings
from app.games.group.state import GameLine, GroupState
from app.games.seam import Connected


def _line(line: GameLine) -> dict[str, Any]:
    return {
        "game": line.game,
        "code": line.code,
        "season": line.season,
        "status": line.status,
        "result": None if line.result is None else [dict(r) for r in line.result],
    }


def group_view(state: GroupState, connected: Connected) -> dict[str, Any]:
    return {
        "game": "group",
        "name": state.name,
        "season": state.season,
        "members": [{"id": m, "connected": connected(m)} for m in state.members],
        "games": [_line(g) for g in state.games],
        "seasons": [
            {
                "season": season,
                "closed": season < state.season,
                "lines": [_line(g) for g in season_lines(state, season)],
                "standings": standings(state, season),
            }
            for season in range(state.season, 0, -1)
        ],
    }
