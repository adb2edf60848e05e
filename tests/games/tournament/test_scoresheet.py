"""The scoresheet before any game is scored, and names a spreadsheet must not run."""

from __future__ import annotations

import httpx

from tests.conftest import ServerProcess
from tests.games.tournament.support import Tourney


def test_a_lobby_scoresheet_has_every_game_column_and_empty_cells(server: ServerProcess) -> None:
    tourney = Tourney(server.base_url, server.ws_url, games=2, rounds=1)
    for name in ("=1+2", "Smith, Jo", '"Q"', "@home"):
        tourney.join(name)
    sheet = httpx.get(f"{server.base_url}/api/tournaments/{tourney.code.lower()}/scoresheet.csv")
    assert sheet.status_code == 200
    assert sheet.headers["content-disposition"] == (
        f'attachment; filename="tournament-{tourney.code}.csv"'
    )
    assert sheet.text == (
        "name,game 1 total,game 1 place,game 1 points,"
        "game 2 total,game 2 place,game 2 points,bonus,total,rank\r\n"
        "'=1+2,,,,,,,0,0,1\r\n"  # a leading = + - @ is made text with a quote
        '"Smith, Jo",,,,,,,0,0,1\r\n'
        '"""Q""",,,,,,,0,0,1\r\n'
        "'@home,,,,,,,0,0,1\r\n"
    )
