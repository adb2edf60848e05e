"""The Bunco state as clients see it: the contract's state object, without code and seq."""

from __future__ import annotations

from typing import Any

from app.games.bunco.state import BuncoState, LastRoll, RoundResult, Table, table_names
from app.games.seam import Connected, fairness_view


def view(state: BuncoState, connected: Connected) -> dict[str, Any]:
    names = table_names(len(state.tables)) if state.tables else ()
    return {
        "game": "bunco",
        "status": state.status,
        "sets": state.sets,
        "set": state.set,
        "round": state.round,
        "phase": state.phase,
        "roll_entry": state.roll_entry,
        "players": [
            {
                "id": p.id,
                "name": p.name,
                "connected": connected(p.id),
                "wins": p.wins,
                "losses": p.losses,
                "buncos": p.buncos,
            }
            for p in state.players
        ],
        "tables": [_table(i, names[i], t) for i, t in enumerate(state.tables)],
        "rounds_log": [_round(r) for r in state.rounds_log],
        "winners": winners(state),
        **({"house_rules": house} if (house := state.house.differences()) else {}),
        **fairness_view(state),
    }


def winners(state: BuncoState) -> list[str]:
    """Everyone with the most wins once the night is finished; [] before."""
    if state.status != "finished" or not state.players:
        return []
    top = max(p.wins for p in state.players)
    return [p.id for p in state.players if p.wins == top]


def _table(index: int, name: str, table: Table) -> dict[str, Any]:
    return {
        "table": index,
        "name": name,
        "seats": list(table.seats),
        "scores": list(table.scores),
        "roller": table.roller,
        "rolloff": table.rolloff,
        "last_roll": _last_roll(table.last_roll),
    }


def _last_roll(last: LastRoll | None) -> dict[str, Any] | None:
    if last is None:
        return None
    return {"dice": list(last.dice), "by": last.by, "points": last.points, "seq": last.seq}


def _round(result: RoundResult) -> dict[str, Any]:
    return {
        "set": result.set,
        "round": result.round,
        "bell_by": result.bell_by,
        "tables": [
            {
                "table": i,
                "seats": list(t.seats),
                "scores": list(t.scores),
                "winners": list(t.winners),
                "losers": list(t.losers),
            }
            for i, t in enumerate(result.tables)
        ],
    }
