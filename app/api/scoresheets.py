"""Scoresheets: a finished (or running) game as a CSV file to download.

`GET /api/{collection}/{code}/scoresheet.csv` is computed from the room's stored state
(the view of its snapshot), never from the live room, so any process can answer it.
A game that has a scoresheet names its rows in its bundle (`Game.scoresheet`); a room
of a game without one is 404 `no_scoresheet`. The CSV itself, and what keeps a cell
from running as a spreadsheet formula, is decided here once for every game.
"""

from __future__ import annotations

import csv
import io
import re
from typing import Any

from fastapi import APIRouter, Request, Response

from app.api.errors import ApiError
from app.api.http import ERRORS, services_of, stored

# A spreadsheet runs a cell starting with one of these; and one that splits cells on `;`
# or `,` (locales differ) starts a cell after each of them too.
FORMULA_START = re.compile(r"(^|[;,])(?=[=+\-@\t\r])")

router = APIRouter(prefix="/api", responses=ERRORS)


def inert(value: Any) -> str:
    """Numbers as the state writes them (3, 1.5), None as empty, text a spreadsheet
    would run as a formula ("=1+1", "x;=1+1") kept as text (a `'` before each start)."""
    if value is None:
        return ""
    text = str(value)
    return FORMULA_START.sub(r"\1'", text) if isinstance(value, str) else text


def to_csv(rows: list[list[Any]]) -> str:
    """RFC 4180: CRLF line ends, quoting only where needed."""
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\r\n").writerows([inert(c) for c in r] for r in rows)
    return buffer.getvalue()


@router.get(
    "/{collection}/{code}/scoresheet.csv",
    response_class=Response,
    responses={200: {"content": {"text/csv": {}}}},
)
async def scoresheet(collection: str, code: str, request: Request) -> Response:
    """The game's scoresheet as CSV (404 `unknown_room` or `unknown_tournament` for a code
    of none of the collection; 404 `no_scoresheet` for a game that has none, e.g. BANK)."""
    services = services_of(request)
    if collection not in {game.collection for game in services.games}:
        raise ApiError("not_found", "Not Found", 404)
    snapshot = await stored(services, code, collection)
    game = services.games[snapshot["game"]]
    if game.scoresheet is None:
        raise ApiError("no_scoresheet", "This game has no scoresheet.", 404)
    return Response(
        to_csv(game.scoresheet(snapshot["state"])),
        media_type="text/csv; charset=utf-8",
        headers={
            "Content-Disposition": f'attachment; filename="{game.name}-{snapshot["code"]}.csv"',
            "Cache-Control": "no-cache",
        },
    )
