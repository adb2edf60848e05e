"""The tournament's state as clients see it: exactly PROTOCOL-tournament.md's shape
(without `code` and `seq`), points as JSON numbers."""

from __future__ import annotations

from typing import Any

from app.games.seam import Connected, fairness_view
from app.games.tournament import scoring
from app.games.tournament.state import Result, TournamentState


def _rolls(group: scoring.Group) -> dict[str, list[int] | None]:
    return {
        pid: None if dice is None else list(dice) for pid, dice in zip(group.players, group.rolls)
    }


def _result(result: Result, player_ids: list[str]) -> dict[str, Any]:
    places = {pid: result.places.get(pid) for pid in player_ids}
    return {
        "game": result.game,
        "tables": list(result.tables),
        "totals": dict(result.totals),
        "places": places,
        "points": {pid: scoring.as_number(scoring.points_halves(places[pid])) for pid in places},
        "rerolls": [{"players": list(g.players), "rolls": _rolls(g)} for g in result.rerolls],
    }


def tournament_view(state: TournamentState, connected: Connected) -> dict[str, Any]:
    """Every player of the tournament appears in every result (null place when absent)."""
    player_ids = [p.id for p in state.players]
    finished = state.status == "finished"
    table = scoring.standings(player_ids, [r.places for r in state.results], state.games, finished)
    pending = state.scoring.pending if state.scoring and state.status == "reroll" else ()
    return {
        "game": "tournament",
        "status": state.status,
        "games": state.games,
        "rounds": state.rounds,
        "roll_entry": state.roll_entry,
        "current": state.current,
        "players": [
            {"id": p.id, "name": p.name, "connected": connected(p.id)} for p in state.players
        ],
        "tables": [
            {"table": t.table, "code": t.code, "players": list(t.players), "status": t.status}
            for t in state.tables
            if t.made
        ],
        "reroll": None
        if not pending
        else {
            "groups": [
                {"places": list(g.places), "players": list(g.players), "rolls": _rolls(g)}
                for g in pending
            ]
        },
        "results": [_result(r, player_ids) for r in state.results],
        "standings": [
            {
                "player_id": line.player_id,
                "points": [scoring.as_number(p) for p in line.points],
                "bonus": scoring.as_number(line.bonus),
                "total": scoring.as_number(line.total),
                "rank": line.rank,
            }
            for line in table
        ],
        "winners": scoring.winners(table, finished),
        **({"house_rules": dict(state.table_rules)} if state.table_rules else {}),
        **fairness_view(state),
    }
