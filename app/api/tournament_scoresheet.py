"""A tournament's scoresheet as CSV: the paper sheet of the format, one row per player.

Columns: name; for each game of the tournament its total, place and points (total and
place empty for a game the player did not play, or one not scored yet: points 0 once
scored, empty before); then bonus, total and rank. Rows in the order of `standings`.
Read from the served state only, so the sheet and the state cannot disagree.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping
from typing import Any

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")  # a spreadsheet would run these


def _cell(value: Any) -> str:
    """Numbers as the state writes them (3, 1.5), None as empty, names made inert."""
    if value is None:
        return ""
    text = str(value)
    return "'" + text if isinstance(value, str) and text.startswith(FORMULA_STARTS) else text


def header(games: int) -> list[str]:
    per_game = [
        f"game {g} {part}" for g in range(1, games + 1) for part in ("total", "place", "points")
    ]
    return ["name", *per_game, "bonus", "total", "rank"]


def rows(state: Mapping[str, Any]) -> list[list[Any]]:
    names = {p["id"]: p["name"] for p in state["players"]}
    results = {r["game"]: r for r in state["results"]}
    table = []
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


def scoresheet_csv(state: Mapping[str, Any]) -> str:
    """The whole sheet, RFC 4180 (CRLF line ends, quoting only where needed)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(header(state["games"]))
    for row in rows(state):
        writer.writerow([_cell(value) for value in row])
    return out.getvalue()


def filename(code: str) -> str:
    return f"tournament-{code}.csv"
