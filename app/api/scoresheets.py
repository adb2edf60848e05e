"""Scoresheets: a finished (or running) night as a CSV file to download.

`GET /api/rooms/{code}/scoresheet.csv` is computed from the room's stored state (the
view of its snapshot), never from the live room, so any process can answer it. Each
game that has a scoresheet registers a writer in `WRITERS` by its `game` name; a room
of a game without one is 404 `no_scoresheet`. A tournament's sheet is one more writer.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Mapping
from typing import Any

from fastapi import APIRouter, Request, Response

from app.api.errors import ApiError

FORMULA_STARTS = frozenset("=+-@")
Writer = Callable[[Mapping[str, Any]], list[list[str]]]

router = APIRouter(prefix="/api")


def bunco_rows(state: Mapping[str, Any]) -> list[list[str]]:
    """One row per player (join order): name, wins, losses, buncos, then W or L for
    every round played, oldest first ("S1R1", "S1R2", ...)."""
    rounds = state["rounds_log"]
    header = ["name", "wins", "losses", "buncos"]
    header += [f"S{r['set']}R{r['round']}" for r in rounds]
    marks = [_marks(r) for r in rounds]
    rows = [header]
    for player in state["players"]:
        pid = player["id"]
        totals = [str(player[key]) for key in ("wins", "losses", "buncos")]
        rows.append([inert(player["name"]), *totals, *(mark.get(pid, "") for mark in marks)])
    return rows


def inert(cell: str) -> str:
    """A name a spreadsheet would run as a formula ("=1+1") is kept as text."""
    return "'" + cell if cell[:1] in FORMULA_STARTS else cell


def _marks(result: Mapping[str, Any]) -> dict[str, str]:
    """W for each winner, L for each loser of one finished round, by player id."""
    marks: dict[str, str] = {}
    for table in result["tables"]:
        marks.update(dict.fromkeys(table["winners"], "W"))
        marks.update(dict.fromkeys(table["losers"], "L"))
    return marks


WRITERS: dict[str, tuple[str, Writer]] = {  # game -> (file name prefix, rows)
    "bunco": ("bunco", bunco_rows),
}


def to_csv(rows: list[list[str]]) -> str:
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\r\n").writerows(rows)
    return buffer.getvalue()


@router.get(
    "/rooms/{code}/scoresheet.csv",
    response_class=Response,
    responses={200: {"content": {"text/csv": {}}}},
)
async def scoresheet(code: str, request: Request) -> Response:
    """The room's scoresheet as CSV (404 `unknown_room`; 404 `no_scoresheet` for a game
    that has none, e.g. BANK)."""
    code = code.upper()
    snapshot = await request.app.state.services.registry.snapshot(code)
    if snapshot is None:
        raise ApiError("unknown_room", "No such room.")
    state: Mapping[str, Any] = snapshot["state"]
    found = WRITERS.get(str(state.get("game")))
    if found is None:
        raise ApiError("no_scoresheet", "This game has no scoresheet.", 404)
    prefix, rows = found
    return Response(
        to_csv(rows(state)),
        media_type="text/csv; charset=utf-8",
        headers={
            "Content-Disposition": f'attachment; filename="{prefix}-{code}.csv"',
            "Cache-Control": "no-cache",
        },
    )
