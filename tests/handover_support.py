"""The hand-over scenarios, over real sockets, for one process or several sharing Redis:
`here` takes the HTTP requests, `there` (maybe another process) the sockets."""

from __future__ import annotations

import time
from typing import Any

import httpx

from app.rooms.eventlog import verify
from tests.client import Client, Table, assert_replays_to
from tests.cluster.conftest import verify_chain
from tests.conftest import ServerProcess
from tests.games.tournament.support import Tourney, assert_room_replays, welcome

CLOSE_BAD_TOKEN = 4401


def post(server: ServerProcess, path: str, token: str, body: Any = None) -> httpx.Response:
    headers = {"Authorization": f"Bearer {token}"}
    return httpx.post(f"{server.base_url}{path}", json=body, headers=headers, timeout=10)


def handover_path(code: str, what: str = "handover") -> str:
    return f"/api/rooms/{code}/{what}"


async def refused_socket(server: ServerProcess, code: str, token: str) -> None:
    """A token that lost its role cannot open a socket any more."""
    old = await Client.connect(server.ws_url, code, token)
    assert await old.wait_closed(10) == CLOSE_BAD_TOKEN


def assert_log_whole(table: Table, server: ServerProcess) -> list[dict[str, Any]]:
    events = httpx.get(f"{server.base_url}/api/rooms/{table.code}/log").json()["events"]
    assert verify(events), "the hash chain is broken"
    verify_chain(events)  # and by the cluster tests' own reading: seqs 1..n, each hash
    state = httpx.get(f"{server.base_url}/api/rooms/{table.code}").json()["state"]
    assert_replays_to(events, state)
    return events  # type: ignore[no-any-return]


async def banker_hands_over(here: ServerProcess, there: ServerProcess) -> None:
    """Mid-game, the banker hands the role to another phone; the old token loses it,
    its socket closes, and the new phone rolls."""
    table = Table(here.base_url, rounds=3)
    table.join("Ann")
    old = await Client.connect(there.ws_url, table.code, table.banker_token)
    ann = await Client.connect(there.ws_url, table.code, table.players["Ann"][1])
    await old.ok(type="start")
    await old.ok(type="roll", dice=[2, 3])

    moved = post(here, handover_path(table.code), table.banker_token)
    assert moved.status_code == 201, moved.text
    body = moved.json()
    assert body["principal"] == "banker" and body["token"] != table.banker_token
    assert await old.wait_closed(10) == CLOSE_BAD_TOKEN

    again = post(here, handover_path(table.code), table.banker_token)
    assert again.status_code == 401 and again.json()["error"]["code"] == "bad_token"
    await refused_socket(there, table.code, table.banker_token)

    new = await Client.connect(there.ws_url, table.code, body["token"])
    welcome = await new.wait_for(lambda m: m["type"] == "welcome")
    assert welcome["you"] == {"role": "banker", "player_id": None}
    seq = await new.ok(type="roll", dice=[4, 4])
    state = await ann.state_at_least(seq)
    assert state["bank"] == 5 + 8 and state["handover"]["host_connected"] is True

    events = assert_log_whole(table, here)
    moves = [e for e in events if e["type"] == "hand_over"]
    assert moves == [{**moves[0], "by": "banker", "data": {"principal": "banker"}}]
    assert moves[0]["seq"] == body["seq"]


async def seat_moves(here: ServerProcess, there: ServerProcess) -> None:
    """The banker moves a player's seat to another phone; the old token loses the seat."""
    table = Table(here.base_url, rounds=3)
    ann_id = table.join("Ann")
    ann_token = table.players["Ann"][1]
    banker = await Client.connect(there.ws_url, table.code, table.banker_token)
    ann_old = await Client.connect(there.ws_url, table.code, ann_token)
    await banker.ok(type="start")
    await banker.ok(type="roll", dice=[6, 1])

    refused = post(here, handover_path(table.code), ann_token, {"player_id": ann_id})
    assert refused.status_code == 403 and refused.json()["error"]["code"] == "not_allowed"
    unknown = post(here, handover_path(table.code), table.banker_token, {"player_id": "nobody"})
    assert unknown.status_code == 404 and unknown.json()["error"]["code"] == "unknown_player"

    moved = post(here, handover_path(table.code), table.banker_token, {"player_id": ann_id})
    assert moved.status_code == 201, moved.text
    assert moved.json()["principal"] == ann_id
    assert await ann_old.wait_closed(10) == CLOSE_BAD_TOKEN
    await refused_socket(there, table.code, ann_token)

    ann_new = await Client.connect(there.ws_url, table.code, moved.json()["token"])
    welcome = await ann_new.wait_for(lambda m: m["type"] == "welcome")
    assert welcome["you"] == {"role": "player", "player_id": ann_id}
    seq = await ann_new.ok(type="bank")
    state = await banker.state_at_least(seq)
    assert state["players"][0]["score"] == 70
    events = assert_log_whole(table, here)
    assert [e["data"] for e in events if e["type"] == "hand_over"] == [{"principal": ann_id}]


def once_the_host_is_away(
    server: ServerProcess, path: str, token: str, body: Any = None, seconds: float = 15
) -> httpx.Response:
    """Send until the room stops answering `host_present` (the host has been away for
    BANKIT_HOST_AWAY_SECONDS), within a deadline."""
    deadline = time.monotonic() + seconds
    while True:
        answer = post(server, path, token, body)
        if answer.status_code != 409 or answer.json()["error"]["code"] != "host_present":
            return answer
        assert time.monotonic() < deadline, "the host never counted as away"
        time.sleep(0.1)


async def table_takes_back(here: ServerProcess, there: ServerProcess) -> None:
    """The banker's phone is gone: one player alone cannot take the role; two of three
    voting for Ann can, and the old banker token is refused afterwards."""
    table = Table(here.base_url, rounds=3)
    ids = {name: table.join(name) for name in ("Ann", "Bob", "Cat")}
    tokens = {name: table.players[name][1] for name in ids}
    banker = await Client.connect(there.ws_url, table.code, table.banker_token)
    phones = {name: await Client.connect(there.ws_url, table.code, tokens[name]) for name in ids}
    cat = phones["Cat"]
    for phone in phones.values():
        await phone.wait_for(lambda m: m["type"] == "welcome")
    await banker.ok(type="start")
    vote = handover_path(table.code, "host/vote")
    claim = handover_path(table.code, "host/claim")
    present = post(here, vote, tokens["Ann"], {"player_id": ids["Ann"]})
    assert present.status_code == 409 and present.json()["error"]["code"] == "host_present"
    await banker.close()  # the banker's phone dies
    await cat.wait_for(
        lambda m: m["type"] == "presence" and m.get("host_connected") is False, timeout=10
    )

    first = once_the_host_is_away(here, vote, tokens["Ann"], {"player_id": ids["Ann"]})
    assert first.status_code == 200, first.text
    alone = post(here, claim, tokens["Ann"])
    assert alone.status_code == 409 and alone.json()["error"]["code"] == "not_chosen"
    assert post(here, handover_path(table.code), tokens["Ann"]).status_code == 403
    guess = post(here, claim, "x" * 32)  # a made-up token: nothing to guess but 192 bits
    assert guess.status_code == 401 and guess.json()["error"]["code"] == "bad_token"

    seq = post(here, vote, tokens["Bob"], {"player_id": ids["Ann"]}).json()["seq"]
    state = await cat.state_at_least(seq)
    assert state["handover"]["chosen"] == ids["Ann"] and state["handover"]["needed"] == 2
    assert post(here, claim, tokens["Cat"]).status_code == 409  # chosen: Ann, not Cat

    taken = post(here, claim, tokens["Ann"])
    assert taken.status_code == 201, taken.text
    assert taken.json()["principal"] == "banker"
    await refused_socket(there, table.code, table.banker_token)
    again = post(here, handover_path(table.code), table.banker_token)
    assert again.status_code == 401

    new = await Client.connect(there.ws_url, table.code, taken.json()["token"])
    assert (await new.wait_for(lambda m: m["type"] == "welcome"))["you"]["role"] == "banker"
    seq = await new.ok(type="roll", dice=[3, 3])
    state = await cat.state_at_least(seq)
    assert state["handover"]["votes"] == {} and state["handover"]["chosen"] is None
    events = assert_log_whole(table, here)
    kinds = [(e["type"], e["by"]) for e in events if e["type"].startswith(("host_", "hand_"))]
    assert kinds == [
        ("host_vote", ids["Ann"]),
        ("host_vote", ids["Bob"]),
        ("hand_over", ids["Ann"]),
    ]
    assert events[-2]["data"] == {"principal": "banker", "to": ids["Ann"], "how": "votes"}


async def banker_offers(here: ServerProcess, there: ServerProcess) -> None:
    """The banker offers the role to a seated player, who takes it from their own phone."""
    table = Table(here.base_url, rounds=3)
    ann, bob = table.join("Ann"), table.join("Bob")
    bob_ws = await Client.connect(there.ws_url, table.code, table.players["Bob"][1])
    offer = handover_path(table.code, "host/offer")
    claim = handover_path(table.code, "host/claim")
    assert post(here, offer, table.players["Ann"][1], {"player_id": ann}).status_code == 403
    assert post(here, claim, table.players["Bob"][1]).status_code == 409  # not offered yet
    seq = post(here, offer, table.banker_token, {"player_id": bob}).json()["seq"]
    assert (await bob_ws.state_at_least(seq))["handover"]["offer"] == bob
    taken = post(here, claim, table.players["Bob"][1])
    assert taken.status_code == 201, taken.text
    await refused_socket(there, table.code, table.banker_token)
    new = await Client.connect(there.ws_url, table.code, taken.json()["token"])
    seq = await new.ok(type="start")
    assert (await bob_ws.state_at_least(seq))["handover"]["offer"] is None
    events = assert_log_whole(table, here)
    assert events[-2]["data"] == {"principal": "banker", "to": bob, "how": "offer"}


async def tournament_tokens_follow(here: ServerProcess, there: ServerProcess) -> None:
    """The organiser hands the tournament to another phone, then moves Ann's seat there:
    the tables of the game in play revoke the old tokens and take the new ones, so the
    inherited organiser token can do nothing at a table and Ann's old token no longer
    opens her table seat."""
    tourney = Tourney(here.base_url, here.ws_url, games=1, rounds=2)
    for name in ("Ann", "Bob", "Cy", "Dee"):
        tourney.join(name)
    await tourney.open()
    tables = await tourney.next([["Ann", "Bob"], ["Cy", "Dee"]])
    codes = [table["code"] for table in tables]
    old = tourney.organiser_token
    at_tables = [await Client.connect(there.ws_url, code, old) for code in codes]
    for banker in at_tables:
        assert (await welcome(banker))["you"]["role"] == "banker"
    ann_old = await Client.connect(there.ws_url, codes[0], tourney.tokens["Ann"])
    await welcome(ann_old)

    moved = post(here, f"/api/tournaments/{tourney.code}/handover", old)
    assert moved.status_code == 201, moved.text
    new = moved.json()["token"]
    for banker in at_tables:  # within a moment, on whichever process holds the table
        assert await banker.wait_closed(10) == CLOSE_BAD_TOKEN
    for code in codes:
        await refused_socket(there, code, old)
        assert post(here, handover_path(code), old).status_code == 401
        assert (
            post(here, handover_path(code, "host/offer"), old, {"player_id": None}).status_code
            == 401
        )
    link = post(here, f"/api/tournaments/{tourney.code}/tables/1/banker", old)
    assert link.status_code == 401
    bankers = [await Client.connect(there.ws_url, code, new) for code in codes]
    for banker in bankers:
        assert (await welcome(banker))["you"]["role"] == "banker"

    ann = tourney.ids["Ann"]
    seat = post(here, f"/api/tournaments/{tourney.code}/handover", new, {"player_id": ann})
    assert seat.status_code == 201, seat.text
    assert await ann_old.wait_closed(10) == CLOSE_BAD_TOKEN
    await refused_socket(there, codes[0], tourney.tokens["Ann"])
    ann_new = await Client.connect(there.ws_url, codes[0], seat.json()["token"])
    assert (await welcome(ann_new))["you"] == {"role": "player", "player_id": ann}
    await bankers[0].ok(type="start")
    await bankers[0].ok(type="roll", dice=[6, 4])
    seq = await ann_new.ok(type="bank")
    state = await bankers[0].state_at_least(seq)
    assert next(p for p in state["players"] if p["id"] == ann)["connected"] is True

    scorekeeper = post(here, f"/api/tournaments/{tourney.code}/tables/2/banker", new)
    assert scorekeeper.status_code == 201, scorekeeper.text
    for code in codes:
        events = httpx.get(f"{here.base_url}/api/rooms/{code}/log").json()["events"]
        assert verify(events)
        verify_chain(events)
        assert_room_replays(here.base_url, code)
        assert old not in str(events) and new not in str(events)
