"""The Bunco state as clients see it: the contract's state object, without code and seq."""

from __future__ import annotations

from typing import Any

from app.games.bunco.state import BuncoState, LastRoll, RoundResult, Table, table_names
from app.games.patch import Op
from app.games.rendered import ViewParts
from app.games.seam import Connected, fairness_view


def view(state: BuncoState, connected: Connected) -> dict[str, Any]:
    return PARTS.view(state, connected)


def view_changes(
    before: BuncoState, after: BuncoState, connected: Connected
) -> dict[str, Any] | None:
    """The parts of the view an event changed (None: the whole view): see `PARTS`."""
    return PARTS.changes(before, after, connected)


def view_patch(before: BuncoState, after: BuncoState, connected: Connected) -> list[Op] | None:
    """The operations that turn `before`'s view into `after`'s (None: diff the whole
    views): each changed part's diff, see `PARTS`."""
    return PARTS.patch(before, after, connected)


def _players(state: BuncoState, connected: Connected) -> list[dict[str, Any]]:
    return [
        {
            "id": p.id,
            "name": p.name,
            "connected": connected(p.id),
            "wins": p.wins,
            "losses": p.losses,
            "buncos": p.buncos,
        }
        for p in state.players
    ]


def _tables(state: BuncoState) -> list[dict[str, Any]]:
    names = table_names(len(state.tables)) if state.tables else ()
    return [_table(i, names[i], t) for i, t in enumerate(state.tables)]


def _tail(state: BuncoState) -> dict[str, Any]:
    """The keys a view has only now and then."""
    return {
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


# Each key of the view, from the fields of the state it reads (in the view's order).
PARTS: ViewParts[BuncoState] = ViewParts(
    {
        "game": ((), lambda s, c: "bunco"),
        "status": (("status",), lambda s, c: s.status),
        "sets": (("sets",), lambda s, c: s.sets),
        "set": (("set",), lambda s, c: s.set),
        "round": (("round",), lambda s, c: s.round),
        "phase": (("phase",), lambda s, c: s.phase),
        "roll_entry": (("roll_entry",), lambda s, c: s.roll_entry),
        "players": (("players",), _players),
        "tables": (("tables",), lambda s, c: _tables(s)),
        "rounds_log": (("rounds_log",), lambda s, c: [_round(r) for r in s.rounds_log]),
        "winners": (("status", "players"), lambda s, c: winners(s)),
    },
    _tail,
    ("house", "fair"),
)
