"""A group's season over real sockets: three nights (a BANK game, a Bunco night, a
tournament) played by members seated with one tap and guests; the standings equal a
model computed from the games' own logs; the season is closed and kept; a member who
leaves is gone from the standings and from the group's stored data."""

from __future__ import annotations

import sqlite3
from typing import Any

import httpx

from app.config import Settings
from app.games.group import make_game
from app.rooms.eventlog import verify
from app.rooms.timeline import Timeline
from tests.conftest import ServerProcess
from tests.games.group import model
from tests.games.group.season import Group, play_bank, play_season, until

GROUP = make_game(Settings()).rules


def group_rows(server: ServerProcess, *codes: str) -> list[bytes]:
    """Every stored row (record and log entries, `code` first) of these rooms, read from
    the server's SQLite file itself."""
    path = server.log_path.parent / f"data-{server.port}" / "bankit.sqlite3"
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
        marks = ",".join("?" * len(codes))
        rooms = db.execute(f"SELECT code, snapshot FROM rooms WHERE code IN ({marks})", codes)
        rows = [code.encode() + bytes(snapshot) for code, snapshot in rooms]
        entries = db.execute(
            f"SELECT code, entry, note FROM entries WHERE code IN ({marks})", codes
        )
        rows += [code.encode() + bytes(entry) + bytes(note or b"") for code, entry, note in entries]
    return rows


async def test_a_season_of_three_nights_matches_the_games_logs(server: ServerProcess) -> None:
    group = Group(server.base_url, server.ws_url)
    codes = await play_season(group)
    bank, bunco, tournament = codes["bank"], codes["bunco"], codes["tournament"]
    ann, bob, cy, dee = (group.members[name][0] for name in ("Ann", "Bob", "Cy", "Dee"))

    games = [
        ("bank", bank, "rooms"),
        ("bunco", bunco, "rooms"),
        ("tournament", tournament, "tournaments"),
    ]
    expected = []
    for kind, code, collection in games:
        line = await group.recorded(code)
        events = httpx.get(f"{server.base_url}/api/{collection}/{code}/log").json()["events"]
        assert verify(events)
        rows = model.rows_from_log(kind, events)
        expected.append((kind, rows))
        assert {r["id"] for r in line["result"]} == set(rows), "every player, guests too"
        assert [r["guest"] for r in line["result"] if "guest" in r] == [
            name for name in ("Gus", "Hal", "Ivy", "Jo") if name in str(events)
        ]

    served = group.get()
    assert served["names"] == {ann: "Ann", bob: "Bob", cy: "Cy", dee: "Dee"}
    season = served["state"]["seasons"][0]
    assert season["standings"] == model.standings([ann, bob, cy, dee], expected)
    assert [line["code"] for line in season["lines"]] == [bank, bunco, tournament]
    assert season["standings"]["tournament"][0]["member"] == ann  # banked last, most

    events = group.log()
    assert verify(events)
    assert [e["data"]["code"] for e in events if e["data"].get("result")] == [
        bank,
        bunco,
        tournament,
    ], "each result is recorded exactly once"
    rebuilt = GROUP.view(Timeline.replay(GROUP, events).state, lambda _: False)
    state = served["state"]
    assert rebuilt == {
        **{k: v for k, v in state.items() if k not in ("code", "seq", "handover")},
        "members": [{**m, "connected": False} for m in state["members"]],
    }

    csv = group.http.get(f"/api/groups/{group.code}/standings.csv")
    assert (
        csv.status_code == 200
        and "Ann" in csv.text
        and csv.text.count("\n") == 1 + sum(len(table) for table in season["standings"].values())
    )

    closed = group.http.post(f"/api/groups/{group.code}/seasons", headers=group.host())
    assert closed.status_code == 202, closed.text
    seasons = group.state()["seasons"]
    assert [s["season"] for s in seasons] == [2, 1] and seasons[1]["closed"]
    assert seasons[1]["standings"] == season["standings"], "the old season is kept"
    assert seasons[0]["standings"]["overall"] == []
    group.http.close()


async def test_a_member_who_leaves_is_deleted_from_the_group(server: ServerProcess) -> None:
    group = Group(server.base_url, server.ws_url)
    stay, leaver = group.join("Ann"), group.join("Quintessa Leaving")
    bank = await group.start("bank", rounds=1)
    ids = {"Ann": group.seat("Ann", bank), "Quintessa": group.seat("Quintessa Leaving", bank)}
    await play_bank(group, bank, ids)
    await group.recorded(bank)
    assert [line["member"] for line in group.state()["seasons"][0]["standings"]["bank"]] == [
        leaver,
        stay,
    ]

    touched = [row for row in group_rows(server, leaver) if b'"touch"' in row]
    assert touched, "the group's game kept their card alive (a touch event)"
    gone = group.http.delete(
        f"/api/groups/{group.code}/members/me", headers=group.token_of("Quintessa Leaving")
    )
    assert gone.status_code == 204, gone.text
    served = group.get()
    assert served["names"] == {stay: "Ann"}
    assert leaver not in str(served["state"]), "no id, no row of theirs in the state"
    standings = served["state"]["seasons"][0]["standings"]
    assert [line["member"] for line in standings["bank"]] == [stay]
    assert "Quintessa" not in str(group.log()), "their name was never in the group's log"
    assert httpx.get(f"{server.base_url}/api/members/{leaver}").status_code == 404
    stored = group_rows(server, group.code, leaver)
    assert stored and all(b"Quintessa" not in row for row in stored), "no name in the group's rows"
    assert not [row for row in stored if leaver.encode() in row[:4]], "their card's rows are gone"
    again = group.http.delete(
        f"/api/groups/{group.code}/members/me", headers=group.token_of("Quintessa Leaving")
    )
    assert again.status_code == 401, "their token opens nothing any more"
    group.http.close()


async def test_bad_requests_leave_the_group_as_it_was(server: ServerProcess) -> None:
    group = Group(server.base_url, server.ws_url)
    group.join("Ann")
    before, log_before = group.state(), group.log()
    games = f"/api/groups/{group.code}/games"
    refused = [
        (group.http.post(games, json={"game": "bank"}, headers=group.token_of("Ann")), 403),
        (group.http.post(games, json={"game": "member"}, headers=group.host()), 422),
        (group.http.post(games, json={"game": "group"}, headers=group.host()), 422),
        (
            group.http.post(
                games, json={"game": "bank", "options": {"rounds": 0}}, headers=group.host()
            ),
            422,
        ),
        (
            group.http.post(games, json={"game": "bank"}, headers={"Authorization": "Bearer nope"}),
            401,
        ),
        (group.http.post(f"/api/groups/{group.code}/members", json={"name": "  "}), 422),
        (group.http.post(f"/api/groups/{group.code}/members", json={"name": "ANN"}), 409),
        (group.http.post(f"/api/groups/{group.code}/seasons", headers=group.host()), 400),
        (group.http.delete(f"/api/groups/{group.code}/members/me", headers=group.host()), 403),
        (
            group.http.post(
                f"/api/groups/{group.code}/games/ABCD/players", headers=group.token_of("Ann")
            ),
            403,
        ),
        (group.http.post("/api/groups", json={"name": ""}), 422),
    ]
    for answer, status in refused:
        assert answer.status_code == status, answer.text
        assert set(answer.json()["error"]) == {"code", "message"}
    assert group.state() == before and group.log() == log_before
    assert list(group.get()["names"].values()) == ["Ann"], "no card left behind"
    group.http.close()


async def test_a_group_and_its_cards_outlive_idle_rooms(fresh_server: Any) -> None:
    server = fresh_server(BANKIT_ROOM_IDLE_SECONDS="1", BANKIT_REAP_INTERVAL_SECONDS="0.2")
    group = Group(server.base_url, server.ws_url)
    ann = group.join("Ann")
    game = await group.start("bank", rounds=1)

    def freed() -> bool:
        return httpx.get(f"{server.base_url}/api/rooms/{game}").status_code == 404

    await until(freed, "the idle game freed", timeout=20)
    assert group.get()["names"] == {ann: "Ann"}, "the group and Ann's card are kept"
    group.http.close()
