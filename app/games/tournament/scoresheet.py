"""A tournament's scoresheet: the paper sheet of the format, one row per player.

Columns: name; for each game of the tournament its total, place and points (total and
place empty for a game the player did not play, or one not scored yet: points 0 once
scored, empty before); then bonus, total and rank. Rows in the order of `standings`.
Read from the served state only, so the sheet and the state cannot disagree.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def header(games: int) -> list[Any]:
    per_game = [
        f"game {g} {part}" for g in range(1, games + 1) for part in ("total", "place", "points")
    ]
    return ["name", *per_game, "bonus", "total", "rank"]


def rows(state: Mapping[str, Any]) -> list[list[Any]]:
    """The header, then a row per player (None: an empty cell)."""
    names = {p["id"]: p["name"] for p in state["players"]}
    results = {r["game"]: r for r in state["results"]}
    table = [header(state["games"])]
    for line in state["standings"]:
        pid = line["player_id"]
        cells: list[Any] = [names[pid]]
        for game in range(1, state["games"] + 1):
            result = results.get(game)
            if result is None:
                cells += [None, None, None]
            else:
                cells += [
                    result["totals"].get(pid),
                    result["places"].get(pid),
                    result["points"][pid],
                ]
        table.append([*cells, line["bonus"], line["total"], line["rank"]])
    return table
