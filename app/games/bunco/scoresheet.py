"""Bunco's scoresheet: one row per player, as the paper tally sheet has it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def rows(state: Mapping[str, Any]) -> list[list[Any]]:
    """One row per player (join order): name, wins, losses, buncos, then W or L for
    every round played, oldest first ("S1R1", "S1R2", ...)."""
    rounds = state["rounds_log"]
    header: list[Any] = ["name", "wins", "losses", "buncos"]
    header += [f"S{r['set']}R{r['round']}" for r in rounds]
    marks = [_marks(r) for r in rounds]
    table = [header]
    for player in state["players"]:
        pid = player["id"]
        totals = [player[key] for key in ("wins", "losses", "buncos")]
        table.append([player["name"], *totals, *(mark.get(pid, "") for mark in marks)])
    return table


def _marks(result: Mapping[str, Any]) -> dict[str, str]:
    """W for each winner, L for each loser of one finished round, by player id."""
    marks: dict[str, str] = {}
    for table in result["tables"]:
        marks.update(dict.fromkeys(table["winners"], "W"))
        marks.update(dict.fromkeys(table["losers"], "L"))
    return marks
