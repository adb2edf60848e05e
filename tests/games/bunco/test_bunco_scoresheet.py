"""The scoresheet of a Bunco night, `GET /api/rooms/{code}/scoresheet.csv`, on a real server.

A short night: 8 players on 2 tables (High A B C D, Low E F G H by the seat drawn at
`start`), one set of 6 rounds, dice entered by the rollers. With 2 tables the
winners swap tables: High's go to Low, Low's to High; the two who stayed take seats
0 and 1, the arrivals 2 and 3.
"""

from __future__ import annotations

import httpx

from tests.client import Table
from tests.conftest import ServerProcess
from tests.games.bunco.bunco_night import BuncoNight, Round, assert_bunco_replays, play_night

SHORT_NIGHT = (
    # R1: Low E one point (E+G); High A's Bunco (A+C). High B D + E G; Low F H + A C.
    Round("ABCD EFGH", "E1 AB", "AC EG"),
    # R2: Low F nothing, H one point (H+C); High B nothing, D's Bunco (D+G).
    # High B E + H C; Low F A + D G.
    Round("BDEG FHAC", "F- H1 B- DB", "DG CH"),
    # R3: Low F one point (F+D); High B's Bunco (B+H). High E C + F D; Low A G + B H.
    Round("BEHC FADG", "F1 BB", "BH DF"),
    # R4: Low A nothing, G one point (G+H); High E nothing, C's Bunco (C+D).
    # High E F + G H; Low A B + C D.
    Round("ECFD AGBH", "A- G1 E- CB", "CD GH"),
    # R5: Low A one point (A+C); High E's Bunco (E+G). High F H + A C; Low B D + E G.
    Round("EFGH ABCD", "A1 EB", "EG AC"),
    # R6, the last: Low B nothing, D one point (D+G); High F nothing, H's Bunco (H+C).
    Round("FHAC BDEG", "B- D1 F- HB", "CH DG", ringer=None),
)
# By hand: W/L per round and the totals (wins, losses, Buncos) per seat letter.
SHEET_ROWS = {
    "A": "2,4,1,W,L,L,L,W,L",
    "B": "1,5,1,L,L,W,L,L,L",
    "C": "5,1,1,W,W,L,W,W,W",
    "D": "4,2,1,L,W,W,W,L,W",
    "E": "2,4,1,W,L,L,L,W,L",
    "F": "1,5,0,L,L,W,L,L,L",
    "G": "5,1,0,W,W,L,W,W,W",
    "H": "4,2,1,L,W,W,W,L,W",
}
HEADER = "name,wins,losses,buncos,S1R1,S1R2,S1R3,S1R4,S1R5,S1R6"
# Names as the CSV writes them: quoted when they hold a comma or a quote; a name a
# spreadsheet would run as a formula is kept as text with a leading apostrophe.
NAMES = {
    "Ann": "Ann",
    "Bob, Jr.": '"Bob, Jr."',
    'Zoë "Z"': '"Zoë ""Z"""',
    "=1+1": "'=1+1",
    "Émile": "Émile",
    "Dee": "Dee",
    "Eve": "Eve",
    "Fay": "Fay",
}


async def test_the_scoresheet_of_a_finished_night_is_the_hand_computed_csv(
    server: ServerProcess,
) -> None:
    night = BuncoNight(server.base_url, sets=1, roll_entry="roller")
    ids = {night.join(name): name for name in NAMES}
    lobby = night.get("/scoresheet.csv")
    assert lobby.text.splitlines() == ["name,wins,losses,buncos"] + [
        f"{NAMES[name]},0,0,0" for name in ids.values()
    ]
    banker, players, spectator = await night.connect([server.ws_url])
    letter, final = await play_night(night, banker, players, spectator, SHORT_NIGHT)
    assert final["status"] == "finished"
    assert_bunco_replays(night.log(), final)

    sheet = night.get("/scoresheet.csv")
    assert sheet.status_code == 200
    assert sheet.headers["content-type"] == "text/csv; charset=utf-8"
    assert sheet.headers["content-disposition"] == (
        f'attachment; filename="bunco-{night.code}.csv"'
    )
    expected = "".join(
        f"{line}\r\n"
        for line in [HEADER, *(f"{NAMES[ids[pid]]},{SHEET_ROWS[letter[pid]]}" for pid in ids)]
    )
    assert sheet.content.decode("utf-8") == expected
    print(sheet.text)  # the report quotes it (pytest -s)


async def test_a_scoresheet_is_404_for_an_unknown_room_and_for_a_game_without_one(
    server: ServerProcess,
) -> None:
    unknown = httpx.get(f"{server.base_url}/api/rooms/ZZZZ/scoresheet.csv")
    assert unknown.status_code == 404
    assert unknown.json()["error"]["code"] == "unknown_room"
    bank = Table(server.base_url)
    other = httpx.get(f"{server.base_url}/api/rooms/{bank.code.lower()}/scoresheet.csv")
    assert other.status_code == 404
    assert other.json()["error"]["code"] == "no_scoresheet"
