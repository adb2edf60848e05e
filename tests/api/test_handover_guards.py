"""Only the table decides (issue 29), over real sockets on one process: a stranger's
seats cannot elect while the banker is here, every route that logs meets the log's
bound, a tournament's table banker links stay bounded on disk, and a tournament's
hand-over reaches its tables (tests/cluster/test_handover_cluster.py: on two)."""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Callable
from pathlib import Path

import httpx

from tests import handover_support as scenario
from tests.client import Client, Table
from tests.conftest import ServerProcess
from tests.games.tournament.support import Tourney, welcome

STRANGER = "127.0.0.2"
MakeServer = Callable[..., ServerProcess]


def join_from(server: ServerProcess, code: str, name: str, source: str) -> dict[str, str]:
    transport = httpx.HTTPTransport(local_address=source)
    with httpx.Client(transport=transport, base_url=server.base_url, timeout=10) as client:
        joined = client.post(f"/api/rooms/{code}/players", json={"name": name})
    assert joined.status_code == 201, joined.text
    return joined.json()  # type: ignore[no-any-return]


async def test_a_stranger_cannot_elect_while_the_banker_is_here_and_the_table_still_can(
    server: ServerProcess,
) -> None:
    table = Table(server.base_url, rounds=3)
    ids = {name: table.join(name) for name in ("Ann", "Bob", "Cy")}
    banker = await Client.connect(server.ws_url, table.code, table.banker_token)
    phones = [
        await Client.connect(server.ws_url, table.code, table.players[name][1]) for name in ids
    ]
    for phone in (banker, *phones):
        await welcome(phone)
    seats = [join_from(server, table.code, f"Zed{n}", STRANGER) for n in range(5)]
    for seat in seats:
        await welcome(
            await Client.connect(server.ws_url, table.code, seat["token"], source=STRANGER)
        )
    vote, claim = (scenario.handover_path(table.code, what) for what in ("host/vote", "host/claim"))
    seq = table.state()["seq"]
    for seat in seats:
        refused = scenario.post(server, vote, seat["token"], {"player_id": seats[0]["player_id"]})
        assert refused.status_code == 409 and refused.json()["error"]["code"] == "host_present"
    taken = scenario.post(server, claim, seats[0]["token"])
    assert taken.status_code == 409 and taken.json()["error"]["code"] == "host_present"
    assert table.state()["seq"] == seq, "nothing logged"
    for seat in seats:  # the banker still holds the role, and removes the strangers
        await banker.ok(type="kick", player_id=seat["player_id"])

    await banker.close()  # now the banker's phone really dies, in the lobby
    late = join_from(server, table.code, "Late", STRANGER)  # seated after the banker left
    await welcome(await Client.connect(server.ws_url, table.code, late["token"], source=STRANGER))
    ann, bob = table.players["Ann"][1], table.players["Bob"][1]
    first = scenario.once_the_host_is_away(server, vote, ann, {"player_id": ids["Ann"]})
    assert first.status_code == 200, first.text
    newcomer = scenario.post(server, vote, late["token"], {"player_id": late["player_id"]})
    assert newcomer.status_code == 403 and newcomer.json()["error"]["code"] == "not_allowed"
    assert scenario.post(server, vote, bob, {"player_id": ids["Ann"]}).status_code == 200
    taken = scenario.post(server, claim, ann)
    assert taken.status_code == 201, taken.text
    await scenario.refused_socket(server, table.code, table.banker_token)
    events = scenario.assert_log_whole(table, server)
    voters = [e["data"]["voter"] for e in events if e["type"] == "host_vote"]
    assert voters == [ids["Ann"], ids["Bob"]]


def room_bytes(folder: Path, code: str) -> int:
    """What the one-process store keeps of a room: its log, its notes, its snapshot (the
    data folder's WAL is reused, up to its own bound: app/bus/sqlite/file.py)."""
    uri = f"file:{folder / 'bankit.sqlite3'}?mode=ro"
    with contextlib.closing(sqlite3.connect(uri, uri=True)) as conn:
        (rows,) = conn.execute(
            "SELECT sum(length(entry) + coalesce(length(note), 0)) FROM entries WHERE code = ?",
            (code,),
        ).fetchone()
        (snapshot,) = conn.execute(
            "SELECT length(snapshot) FROM rooms WHERE code = ?", (code,)
        ).fetchone()
    return int(rows) + int(snapshot)


async def test_800_table_banker_links_grow_the_store_by_a_bounded_amount(
    server: ServerProcess,
) -> None:
    """Each link replaces the last (the table's banker role: the organiser's token and
    the newest link), and the journal notes each token change, not the whole map: 800
    links store ~0.4 MB (each note held every token before: ~26 MB)."""
    tourney = Tourney(server.base_url, server.ws_url, games=1, rounds=1)
    tourney.join("Ann")
    tourney.join("Bob")
    await tourney.open()
    (table,) = await tourney.next()
    folder = server.log_path.parent / f"data-{server.port}"
    path = f"/api/tournaments/{tourney.code}/tables/1/banker"
    headers = {"Authorization": f"Bearer {tourney.organiser_token}"}
    with httpx.Client(base_url=server.base_url, headers=headers, timeout=10) as client:
        first = client.post(path).json()["banker_token"]
        before = room_bytes(folder, table["code"])
        links = [client.post(path) for _ in range(800)]  # ~2 ms each on one connection
    assert {link.status_code for link in links} == {201}
    grown = room_bytes(folder, table["code"]) - before  # a 201 answers once it is on disk
    assert grown < 800_000, f"800 links stored {grown} bytes"
    await scenario.refused_socket(server, table["code"], first)  # replaced by the newer ones
    await scenario.refused_socket(server, table["code"], links[400].json()["banker_token"])
    organiser = await Client.connect(server.ws_url, table["code"], tourney.organiser_token)
    assert (await welcome(organiser))["you"]["role"] == "banker"
    events = httpx.get(f"{server.base_url}/api/rooms/{table['code']}/log").json()["events"]
    assert sum(e["data"].get("how") == "banker_link" for e in events) == 801


async def test_every_route_that_logs_meets_the_log_s_bound(fresh_server: MakeServer) -> None:
    """At BANKIT_MAX_LOG_EVENTS every command is refused `log_full` by the room itself,
    whichever way it came (socket, hand-over routes, a table's banker link), and the
    log stays at the bound; a revocation (the organiser's hand-over reaching its table)
    still applies, so no old token outlives a full log."""
    proc = fresh_server(BANKIT_MAX_LOG_EVENTS="100")
    room = Table(proc.base_url)
    ids = [room.join(name) for name in ("Ann", "Bob")]
    offer = scenario.handover_path(room.code, "host/offer")
    answers = [
        scenario.post(proc, offer, room.banker_token, {"player_id": ids[n % 2]}).json()
        for n in range(120)
    ]
    assert answers[-1]["error"]["code"] == "log_full"
    assert len(room.log()) == 100 and room.state()["seq"] == 100
    again = scenario.post(proc, offer, room.banker_token, {"player_id": ids[1]})
    assert again.status_code == 409

    tourney = Tourney(proc.base_url, proc.ws_url, games=1, rounds=1)
    ann = tourney.join("Ann")
    tourney.join("Bob")
    await tourney.open()
    (table,) = await tourney.next()
    code = table["code"]
    banker = await Client.connect(proc.ws_url, code, tourney.organiser_token)
    await welcome(banker)
    await banker.ok(type="start")
    seq = 0
    while seq < 100:  # rolls of 5 never end the round
        answer = await banker.command(type="roll", dice=[2, 3])
        seq = answer.get("seq", 100)
    assert (await banker.command(type="roll", dice=[2, 3]))["code"] == "log_full"
    ann_token = tourney.tokens["Ann"]
    for path, token, body in (
        (scenario.handover_path(code), tourney.organiser_token, None),
        (scenario.handover_path(code), tourney.organiser_token, {"player_id": ann}),
        (scenario.handover_path(code, "host/offer"), tourney.organiser_token, {"player_id": ann}),
        (scenario.handover_path(code, "host/vote"), ann_token, {"player_id": ann}),
        (scenario.handover_path(code, "host/claim"), ann_token, None),
        (f"/api/tournaments/{tourney.code}/tables/1/banker", tourney.organiser_token, None),
    ):
        refused = scenario.post(proc, path, token, body)
        assert refused.status_code == 409, (path, refused.text)
        assert refused.json()["error"]["code"] == "log_full", (path, refused.text)
    log = httpx.get(f"{proc.base_url}/api/rooms/{code}/log").json()["events"]
    assert len(log) == 100

    moved = scenario.post(
        proc, f"/api/tournaments/{tourney.code}/handover", tourney.organiser_token
    )
    assert moved.status_code == 201, moved.text
    assert await banker.wait_closed(10) == scenario.CLOSE_BAD_TOKEN
    await scenario.refused_socket(proc, code, tourney.organiser_token)


def test_a_tournament_s_log_is_paged_as_a_room_s(server: ServerProcess) -> None:
    tourney = Tourney(server.base_url, server.ws_url, games=1, rounds=1)
    for name in ("Ann", "Bob", "Cy"):
        tourney.join(name)
    path = f"{server.base_url}/api/tournaments/{tourney.code}/log"
    first = httpx.get(path, params={"limit": 2}).json()
    assert [e["seq"] for e in first["events"]] == [1, 2] and first["next_after"] == 2
    rest = httpx.get(path, params={"after": 2}).json()
    assert [e["seq"] for e in rest["events"]] == [3, 4] and rest["next_after"] is None
    assert httpx.get(path, params={"limit": 0}).status_code == 422


async def test_a_tournament_s_strangers_cannot_elect_while_the_organiser_is_here(
    server: ServerProcess,
) -> None:
    tourney = Tourney(server.base_url, server.ws_url, games=1, rounds=1)
    organiser = await tourney.open()
    base = f"/api/tournaments/{tourney.code}"
    transport = httpx.HTTPTransport(local_address=STRANGER)
    with httpx.Client(transport=transport, base_url=server.base_url, timeout=10) as stranger:
        seats = [
            stranger.post(f"{base}/players", json={"name": f"Zed{n}"}).json() for n in range(3)
        ]
    seq = tourney.state()["seq"]
    for seat in seats:
        vote = scenario.post(server, f"{base}/host/vote", seat["token"], {"player_id": None})
        assert vote.status_code == 409 and vote.json()["error"]["code"] == "host_present"
    claim = scenario.post(server, f"{base}/host/claim", seats[0]["token"])
    assert claim.status_code == 409 and claim.json()["error"]["code"] == "host_present"
    assert tourney.state()["seq"] == seq
    await organiser.ok(type="kick", player_id=seats[0]["player_id"])  # still the organiser
