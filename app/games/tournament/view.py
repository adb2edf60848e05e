"""The tournament's state as clients see it: exactly PROTOCOL-tournament.md's shape
(without `code` and `seq`), points as JSON numbers."""

from __future__ import annotations

from typing import Any

from app.games.patch import Op
from app.games.rendered import ViewParts
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
    return PARTS.view(state, connected)


def view_changes(
    before: TournamentState, after: TournamentState, connected: Connected
) -> dict[str, Any] | None:
    """The parts of the view an event changed (None: the whole view): see `PARTS`."""
    return PARTS.changes(before, after, connected)


def view_patch(
    before: TournamentState, after: TournamentState, connected: Connected
) -> list[Op] | None:
    """The operations that turn `before`'s view into `after`'s (None: diff the whole
    views): each changed part's diff, see `PARTS`."""
    return PARTS.patch(before, after, connected)


def _standings(state: TournamentState) -> list[scoring.Standing]:
    player_ids = [p.id for p in state.players]
    finished = state.status == "finished"
    return scoring.standings(player_ids, [r.places for r in state.results], state.games, finished)


def _reroll(state: TournamentState) -> dict[str, Any] | None:
    pending = state.scoring.pending if state.scoring and state.status == "reroll" else ()
    if not pending:
        return None
    return {
        "groups": [
            {"places": list(g.places), "players": list(g.players), "rolls": _rolls(g)}
            for g in pending
        ]
    }


def _standings_view(state: TournamentState) -> list[dict[str, Any]]:
    return [
        {
            "player_id": line.player_id,
            "points": [scoring.as_number(p) for p in line.points],
            "bonus": scoring.as_number(line.bonus),
            "total": scoring.as_number(line.total),
            "rank": line.rank,
        }
        for line in _standings(state)
    ]


def _tail(state: TournamentState) -> dict[str, Any]:
    """The keys a view has only now and then."""
    return {
        **({"house_rules": dict(state.table_rules)} if state.table_rules else {}),
        **fairness_view(state),
    }


# Each key of the view, from the fields of the state it reads (in the view's order).
PARTS: ViewParts[TournamentState] = ViewParts(
    {
        "game": ((), lambda s, c: "tournament"),
        "status": (("status",), lambda s, c: s.status),
        "games": (("games",), lambda s, c: s.games),
        "rounds": (("rounds",), lambda s, c: s.rounds),
        "roll_entry": (("roll_entry",), lambda s, c: s.roll_entry),
        "current": (("current",), lambda s, c: s.current),
        "players": (
            ("players",),
            lambda s, c: [{"id": p.id, "name": p.name, "connected": c(p.id)} for p in s.players],
        ),
        "tables": (
            ("tables",),
            lambda s, c: [
                {"table": t.table, "code": t.code, "players": list(t.players), "status": t.status}
                for t in s.tables
                if t.made
            ],
        ),
        "reroll": (("scoring", "status"), lambda s, c: _reroll(s)),
        "results": (
            ("results", "players"),
            lambda s, c: [_result(r, [p.id for p in s.players]) for r in s.results],
        ),
        "standings": (("players", "results", "games", "status"), lambda s, c: _standings_view(s)),
        "winners": (
            ("players", "results", "games", "status"),
            lambda s, c: scoring.winners(_standings(s), s.status == "finished"),
        ),
    },
    _tail,
    ("table_rules", "fair"),
)
