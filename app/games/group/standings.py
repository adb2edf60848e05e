"""A season's standings, per member: per game kind and overall (pure, from the state).

Per kind: games played, games won, average and best score (BANK: the final score;
Bunco: rounds won; a tournament: its points) and the kind's own numbers (BANK: the
biggest BANK and the rounds lost to a 7; Bunco: rounds won and lost, buncos). Overall:
games played and won (scores of different games do not add up). Guests are in the
season's lines, not in the standings. Sorted by wins, then average, then id."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from app.games.group.state import GAMES, GameLine, GroupState

SUMMED = {"bank": ("lost_to_seven",), "bunco": ("wins", "losses", "buncos"), "tournament": ()}
HIGHEST = {"bank": ("biggest_bank",), "bunco": (), "tournament": ()}
RENAMED = {"wins": "rounds_won", "losses": "rounds_lost"}  # Bunco's, beside games won


def number(value: float) -> int | float:
    """A JSON number: whole when it is whole, else to two decimals."""
    return int(value) if float(value).is_integer() else round(value, 2)


def season_lines(state: GroupState, season: int) -> list[GameLine]:
    return [g for g in state.games if g.season == season and g.result is not None]


def _kind(members: Iterable[str], lines: list[GameLine], kind: str) -> list[dict[str, Any]]:
    table = []
    for member in members:
        rows = [r for g in lines if g.game == kind for r in g.result or () if r["id"] == member]
        if not rows:
            continue
        scores = [r["score"] for r in rows]
        line: dict[str, Any] = {
            "member": member,
            "games": len(rows),
            "wins": sum(1 for r in rows if r["won"]),
            "average": number(sum(scores) / len(scores)),
            "best": number(max(scores)),
        }
        for key in SUMMED[kind]:
            line[RENAMED.get(key, key)] = sum(r.get(key, 0) for r in rows)
        for key in HIGHEST[kind]:
            line[key] = max(r.get(key, 0) for r in rows)
        table.append(line)
    return _sorted(table)


def _sorted(table: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return sorted(table, key=lambda line: (-line["wins"], -line.get("average", 0), line["member"]))


def standings(state: GroupState, season: int) -> dict[str, list[dict[str, Any]]]:
    lines = season_lines(state, season)
    kinds = {kind: _kind(state.members, lines, kind) for kind in GAMES}
    overall: dict[str, dict[str, Any]] = {}
    for table in kinds.values():
        for line in table:
            total = overall.setdefault(line["member"], {"member": line["member"], "games": 0})
            total["games"] += line["games"]
            total["wins"] = total.get("wins", 0) + line["wins"]
    return {"overall": _sorted(list(overall.values())), **kinds}


def csv_rows(view: Mapping[str, Any], names: Mapping[str, str]) -> list[list[Any]]:
    """Every season's standings (of the view), one row per member and kind, named."""
    rows: list[list[Any]] = [
        ["season", "kind", "member", "games", "wins", "average", "best", "details"]
    ]
    for season in view["seasons"]:
        for kind, table in season["standings"].items():
            for line in table:
                details = "; ".join(
                    f"{k}={v}"
                    for k, v in line.items()
                    if k not in ("member", "games", "wins", "average", "best")
                )
                rows.append(
                    [
                        season["season"],
                        kind,
                        names.get(line["member"], "?"),
                        line["games"],
                        line["wins"],
                        line.get("average", ""),
                        line.get("best", ""),
                        details,
                    ]
                )
    return rows
