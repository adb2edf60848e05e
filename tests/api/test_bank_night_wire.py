"""Game night (issue 11) over a real server: totals, a reload mid-round, unbank, the undo
preview, late seats by the banker, play again with everyone following, "Too late"."""

from __future__ import annotations

from typing import Any

import httpx

from tests.client import Client, Message, Table
from tests.conftest import ServerProcess


def seat_late(
    server: ServerProcess, code: str, name: str, token: str | None, phone: bool = True
) -> httpx.Response:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    body: dict[str, Any] = {"name": name} if phone else {"name": name, "phone": False}
    return httpx.post(f"{server.base_url}/api/rooms/{code}/players", json=body, headers=headers)


async def started(server: ServerProcess, *names: str, **options: Any) -> tuple[Table, Client]:
    table = Table(server.base_url, **options)
    for name in names:
        table.join(name)
    banker = await Client.connect(server.ws_url, table.code, table.banker_token)
    await banker.ok(type="start")
    return table, banker


async def welcome_of(client: Client) -> Message:
    return await client.wait_for(lambda m: m.get("type") == "welcome")


async def test_a_total_roll_is_logged_as_a_total(server: ServerProcess) -> None:
    table, banker = await started(server, "Ann")
    seq = await banker.ok(type="roll", total=8)
    state = await banker.state_at_least(seq)
    assert state["last_roll"] == {"dice": None, "total": 8, "by": state["turn"], "seq": seq}
    assert state["bank"] == 8
    assert table.log()[-1]["data"] == {"total": 8, "player_id": state["turn"]}
    await banker.refused("bad_message", type="roll", total=12)
    await banker.refused("bad_message", type="roll", total=8, dice=[4, 4])


async def test_a_spectator_who_arrives_mid_round_gets_the_round_so_far(
    server: ServerProcess,
) -> None:
    table, banker = await started(server, "Ann", "Bob")
    ann_id = table.players["Ann"][0]
    await banker.ok(type="roll", dice=[3, 4])
    await banker.ok(type="roll", total=9)
    last = await banker.ok(type="bank", player_id=ann_id)
    tv = await Client.connect(server.ws_url, table.code)
    state = (await welcome_of(tv))["state"]
    assert state["seq"] == last
    assert [(r["dice"], r["total"], r["bank_after"]) for r in state["round_log"]["rolls"]] == [
        ([3, 4], 7, 70),
        (None, 9, 79),
    ]
    assert state["round_log"]["banks"] == [
        {"player_id": ann_id, "amount": 79, "seq": last, "by_banker": True}
    ]


async def test_unbank_takes_back_the_bankers_bank_and_says_so(server: ServerProcess) -> None:
    table, banker = await started(server, "Ann", "Bob")
    bob_id = table.players["Bob"][0]
    ann = await Client.connect(server.ws_url, table.code, table.players["Ann"][1])
    await banker.ok(type="roll", dice=[2, 3])
    bank_seq = await banker.ok(type="bank", player_id=bob_id)
    await banker.ok(type="roll", dice=[1, 3])
    seq = await banker.ok(type="unbank", player_id=bob_id)
    state = await ann.state_at_least(seq)
    bob = next(p for p in state["players"] if p["id"] == bob_id)
    assert (bob["score"], bob["banked"]) == (0, False)
    assert state["bank"] == 9 and state["roll_count"] == 2
    assert state["last_correction"] == {
        "type": "unbank",
        "seq": bank_seq,
        "took_back": [{"type": "bank", "seq": bank_seq, "player_id": bob_id, "amount": 5}],
    }
    assert table.log()[-1]["data"] == {"player_id": bob_id, "amount": 5, "bank_seq": bank_seq}
    await ann.ok(type="bank")
    await ann.refused("not_allowed", type="unbank", player_id=table.players["Ann"][0])
    await banker.refused("not_allowed", type="unbank", player_id=table.players["Ann"][0])


async def test_the_undo_preview_matches_what_undo_then_takes_back(server: ServerProcess) -> None:
    table, banker = await started(server, "Ann", "Bob")
    ann_id, bob_id = table.players["Ann"][0], table.players["Bob"][0]
    first = await banker.ok(type="roll", dice=[2, 3])
    roll = await banker.ok(type="roll", total=6)
    await banker.ok(type="bank", player_id=ann_id)
    seq = await banker.ok(type="bank", player_id=bob_id)
    # both banked: the round ended; the preview still reaches back to the last roll
    state = await banker.state_at_least(seq)
    preview = state["undo_preview"]
    assert preview["seq"] == roll
    assert [(c["type"], c["seq"]) for c in preview["takes_back"]] == [
        ("roll", roll),
        ("bank", roll + 1),
        ("bank", roll + 2),
    ]
    undo = await banker.ok(type="undo")
    assert table.log()[-1]["data"] == {"undone_seq": preview["seq"]}
    after = await banker.state_at_least(undo)
    assert after["round"] == 1 and after["roll_count"] == 1
    assert [p["score"] for p in after["players"]] == [0, 0]
    assert after["undo_preview"]["seq"] == first


async def test_the_banker_seats_latecomers_with_and_without_a_phone(server: ServerProcess) -> None:
    table, banker = await started(server, "Ann")
    await banker.ok(type="roll", dice=[2, 3])
    assert table.state()["open_to_join"] is False
    alone = seat_late(server, table.code, "Dee", None)
    assert alone.status_code == 409 and alone.json()["error"]["code"] == "not_in_lobby"
    ann_token = table.players["Ann"][1]
    wrong = seat_late(server, table.code, "Dee", ann_token)
    assert wrong.status_code == 403 and wrong.json()["error"]["code"] == "not_allowed"
    assert len(table.state()["players"]) == 1

    dee = seat_late(server, table.code, "Dee", table.banker_token)
    assert dee.status_code == 201, dee.text
    body = dee.json()
    phone = await Client.connect(server.ws_url, table.code, body["token"])
    welcome = await welcome_of(phone)
    assert welcome["you"] == {"role": "player", "player_id": body["player_id"]}
    me = welcome["state"]["players"][-1]
    assert (me["name"], me["score"], me["waiting"], me["has_phone"]) == ("Dee", 0, True, True)
    await phone.refused("just_joined", type="bank")
    await banker.ok(type="roll", dice=[1, 2])
    assert (await phone.command(type="bank"))["type"] == "ack"

    eve = seat_late(server, table.code, "Eve", table.banker_token, phone=False)
    assert eve.status_code == 201
    assert eve.json()["state"]["players"][-1]["has_phone"] is False


async def test_a_lobby_seat_without_a_phone_and_open_to_join(server: ServerProcess) -> None:
    table = Table(server.base_url)
    assert table.state()["open_to_join"] is True
    response = seat_late(server, table.code, "Gran", None, phone=False)
    assert response.status_code == 201
    assert response.json()["state"]["players"][0]["has_phone"] is False


async def test_a_bank_after_the_seven_of_a_round_reads_too_late(server: ServerProcess) -> None:
    table, banker = await started(server, "Ann", "Bob")
    ann = await Client.connect(server.ws_url, table.code, table.players["Ann"][1])
    for dice in ([2, 3], [4, 2], [6, 5], [3, 4]):
        await banker.ok(type="roll", dice=dice)
    answer = await ann.refused("round_over", type="bank")
    assert answer["message"] == "Too late: the 7 came first."


async def test_play_again_moves_everyone_to_a_new_room_with_the_same_tokens(
    server: ServerProcess,
) -> None:
    table = Table(server.base_url, rounds=1)
    for name in ("Ann", "Bob", "Cy"):
        table.join(name)
    gran = seat_late(server, table.code, "Gran", None, phone=False)
    gran_id = gran.json()["player_id"]
    banker = await Client.connect(server.ws_url, table.code, table.banker_token)
    await banker.ok(type="start")
    phones = {
        name: await Client.connect(server.ws_url, table.code, token)
        for name, (_, token) in table.players.items()
    }
    tv = await Client.connect(server.ws_url, table.code)
    await banker.refused("not_finished", type="play_again")
    for dice in ([2, 3], [4, 2], [6, 5], [3, 4]):
        await banker.ok(type="roll", dice=dice)
    await phones["Ann"].refused("not_allowed", type="play_again")
    await banker.ok(type="play_again")

    def moved(message: Message) -> bool:
        return message.get("type") == "state" and message["state"]["next_game"] is not None

    seen = [await c.wait_for(moved) for c in (banker, tv, *phones.values())]
    codes = {m["state"]["next_game"] for m in seen}
    assert len(codes) == 1
    (new_code,) = codes
    assert new_code != table.code
    await banker.refused("already_playing_again", type="play_again")

    new_banker = await Client.connect(server.ws_url, new_code, table.banker_token)
    assert (await welcome_of(new_banker))["you"]["role"] == "banker"
    for pid, token in table.players.values():
        phone = await Client.connect(server.ws_url, new_code, token)
        assert (await welcome_of(phone))["you"] == {"role": "player", "player_id": pid}
    new_tv = await Client.connect(server.ws_url, new_code)
    state = (await welcome_of(new_tv))["state"]
    seats = [(p["name"], p["has_phone"]) for p in state["players"]]
    assert seats == [("Ann", True), ("Bob", True), ("Cy", True), ("Gran", False)]
    assert (state["status"], state["previous_game"], state["rounds"]) == ("lobby", table.code, 1)
    assert await new_banker.ok(type="start") > state["seq"]
    log = httpx.get(f"{server.base_url}/api/rooms/{new_code}/log").json()["events"]
    assert [e["type"] for e in log] == ["create", "start"]  # seated by its first event
    created = log[0]
    names = [(name, pid) for name, (pid, _) in table.players.items()] + [("Gran", gran_id)]
    assert created["data"] == {
        "game": "bank",
        "rounds": 1,
        "roll_entry": "banker",
        "parent": table.code,
        "no_phone": [gran_id],
        "seats": [{"player_id": pid, "name": name} for name, pid in names],
    }

    old = table.state()  # the finished game stays viewable
    assert (old["status"], old["next_game"]) == ("finished", new_code)
    assert table.log()[-1]["type"] == "spawned"
