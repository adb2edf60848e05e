"""Bad input over a real socket: a clear error, the room exactly as before, the
connection still usable (except oversized frames and floods, which close it)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import pytest
from websockets.asyncio.client import connect

from tests.client import Client, Table
from tests.conftest import ServerProcess


@dataclass
class Seated:
    table: Table
    banker: Client
    ann: Client
    bob: Client
    watcher: Client
    ann_id: str
    bob_id: str

    async def assert_usable(self, client: Client) -> None:
        pong = await client.command(type="ping")
        assert pong["type"] == "pong"

    def fingerprint(self) -> tuple[Any, int]:
        """The room's state and log length; presence (not a room event) left out."""
        state = self.table.state()
        for player in state["players"]:
            del player["connected"]
        return state, len(self.table.log())


async def seat(server: ServerProcess, start: bool = True, **options: Any) -> Seated:
    table = Table(server.base_url, **options)
    ann_id, bob_id = table.join("Ann"), table.join("Bob")
    banker = await Client.connect(server.ws_url, table.code, table.banker_token)
    ann = await Client.connect(server.ws_url, table.code, table.players["Ann"][1])
    bob = await Client.connect(server.ws_url, table.code, table.players["Bob"][1])
    watcher = await Client.connect(server.ws_url, table.code)
    if start:
        await banker.ok(type="start")
        await banker.ok(type="roll", dice=[2, 3])
    return Seated(table, banker, ann, bob, watcher, ann_id, bob_id)


@pytest.fixture
async def room(server: ServerProcess) -> AsyncIterator[Seated]:
    seated = await seat(server)
    yield seated
    for client in (seated.banker, seated.ann, seated.bob, seated.watcher):
        await client.close()


async def expect_refusal(
    room: Seated, client: Client, raw: str | dict[str, Any], code: str, command_id: str | None
) -> None:
    before = room.fingerprint()
    await client.send(raw)
    answer = await client.wait_for(lambda m: m.get("type") == "error" and m.get("code") == code)
    assert answer["id"] == command_id
    assert answer["message"]
    assert room.fingerprint() == before
    await room.assert_usable(client)


NOT_JSON = ["not json", "{", "[1, 2", '{"type": "bank",}']
NOT_OBJECT = ["[]", "3", '"bank"', "null"]


@pytest.mark.parametrize("raw", NOT_JSON + NOT_OBJECT)
async def test_text_that_is_not_a_json_object_is_bad_message(room: Seated, raw: str) -> None:
    await expect_refusal(room, room.ann, raw, "bad_message", None)


@pytest.mark.parametrize(
    "message",
    [
        {"type": "fold", "id": "m1"},
        {"id": "m1"},
        {"type": None, "id": "m1"},
        {"type": "roll", "dice": [0, 3], "id": "m1"},
        {"type": "roll", "dice": [7, 3], "id": "m1"},
        {"type": "roll", "dice": ["3", 4], "id": "m1"},
        {"type": "roll", "dice": [3.0, 4], "id": "m1"},
        {"type": "roll", "dice": [True, 4], "id": "m1"},
        {"type": "roll", "dice": [1, 2, 3], "id": "m1"},
        {"type": "roll", "dice": [3], "id": "m1"},
        {"type": "roll", "dice": "34", "id": "m1"},
        {"type": "roll", "id": "m1"},
        {"type": "bank", "id": "m1"},
        {"type": "bank", "player_id": 5, "id": "m1"},
        {"type": "kick", "id": "m1"},
    ],
)
async def test_banker_mistyped_commands_are_bad_message(
    room: Seated, message: dict[str, Any]
) -> None:
    await expect_refusal(room, room.banker, message, "bad_message", "m1")


@pytest.mark.parametrize("bad_id", [5, "x" * 65, ["a"], {"a": 1}])
async def test_an_invalid_id_is_refused_and_the_error_carries_none(
    room: Seated, bad_id: Any
) -> None:
    await expect_refusal(
        room, room.banker, {"type": "roll", "dice": [3, 4], "id": bad_id}, "bad_message", None
    )


async def test_a_lone_surrogate_is_not_valid_unicode(room: Seated) -> None:
    await expect_refusal(room, room.ann, '{"type": "bank", "id": "\\ud800"}', "bad_message", None)


async def test_a_binary_frame_is_bad_message(room: Seated) -> None:
    before = room.fingerprint()
    await room.ann.ws.send(b'{"type": "bank"}')
    await room.ann.wait_for(lambda m: m.get("code") == "bad_message")
    assert room.fingerprint() == before
    await room.assert_usable(room.ann)


async def test_a_roll_from_a_player_in_banker_mode_is_not_allowed(room: Seated) -> None:
    await expect_refusal(
        room, room.ann, {"type": "roll", "dice": [3, 4], "id": "r"}, "not_allowed", "r"
    )


@pytest.mark.parametrize(
    "message", [{"type": "start"}, {"type": "undo"}, {"type": "kick", "player_id": "x"}]
)
async def test_banker_commands_from_a_player_are_not_allowed(
    room: Seated, message: dict[str, Any]
) -> None:
    await expect_refusal(room, room.ann, {**message, "id": "p"}, "not_allowed", "p")


@pytest.mark.parametrize(
    "message",
    [{"type": "bank"}, {"type": "roll", "dice": [3, 4]}, {"type": "start"}, {"type": "undo"}],
)
async def test_a_spectator_may_only_watch(room: Seated, message: dict[str, Any]) -> None:
    await expect_refusal(room, room.watcher, {**message, "id": "w"}, "not_allowed", "w")


async def test_a_player_cannot_bank_for_someone_else(room: Seated) -> None:
    await expect_refusal(
        room, room.ann, {"type": "bank", "player_id": room.bob_id, "id": "b"}, "not_allowed", "b"
    )


async def test_bank_for_an_unknown_player_is_unknown_player(room: Seated) -> None:
    await expect_refusal(
        room, room.banker, {"type": "bank", "player_id": "nobody", "id": "b"}, "unknown_player", "b"
    )


async def test_banking_twice_in_a_round_is_already_banked(room: Seated) -> None:
    await room.ann.ok(type="bank")
    await expect_refusal(room, room.ann, {"type": "bank", "id": "again"}, "already_banked", "again")
    await expect_refusal(
        room,
        room.banker,
        {"type": "bank", "player_id": room.ann_id, "id": "again2"},
        "already_banked",
        "again2",
    )


async def test_bank_after_the_seven_is_round_over(room: Seated) -> None:
    for dice in ([1, 2], [2, 2], [6, 1]):  # rolls 2, 3 and then the 7 on roll 4
        await room.banker.ok(type="roll", dice=dice)
    state = room.table.state()
    assert state["round"] == 2 and state["roll_count"] == 0
    await expect_refusal(room, room.ann, {"type": "bank", "id": "late"}, "round_over", "late")


async def test_bank_and_roll_before_start_are_not_started(server: ServerProcess) -> None:
    seated = await seat(server, start=False)
    await expect_refusal(seated, seated.ann, {"type": "bank", "id": "e"}, "not_started", "e")
    await expect_refusal(
        seated, seated.banker, {"type": "roll", "dice": [3, 4], "id": "r"}, "not_started", "r"
    )
    await expect_refusal(seated, seated.banker, {"type": "undo", "id": "u"}, "nothing_to_undo", "u")


async def test_start_with_no_player_is_not_enough_players(server: ServerProcess) -> None:
    table = Table(server.base_url)
    banker = await Client.connect(server.ws_url, table.code, table.banker_token)
    await banker.refused("not_enough_players", type="start")
    assert table.state()["status"] == "lobby"
    await banker.close()


async def test_commands_after_the_game_ended(server: ServerProcess) -> None:
    seated = await seat(server, rounds=1)
    await seated.ann.ok(type="bank")
    await seated.bob.ok(type="bank")  # everyone banked: the only round ends, by all_banked
    assert seated.table.state()["status"] == "finished"
    await expect_refusal(
        seated, seated.banker, {"type": "roll", "dice": [3, 4], "id": "r"}, "game_over", "r"
    )
    await expect_refusal(
        seated, seated.banker, {"type": "start", "id": "s"}, "already_started", "s"
    )
    await expect_refusal(
        seated,
        seated.banker,
        {"type": "kick", "player_id": seated.ann_id, "id": "k"},
        "not_in_lobby",
        "k",
    )
    await expect_refusal(seated, seated.ann, {"type": "bank", "id": "b"}, "game_over", "b")


async def test_bank_after_the_seven_that_ended_the_last_round_is_round_over(
    server: ServerProcess,
) -> None:
    seated = await seat(server, rounds=1)
    for dice in ([1, 2], [2, 2], [6, 1]):
        await seated.banker.ok(type="roll", dice=dice)
    assert seated.table.state()["status"] == "finished"
    await expect_refusal(seated, seated.ann, {"type": "bank", "id": "b"}, "round_over", "b")


async def test_a_roll_out_of_turn_in_roller_mode_is_not_your_turn(server: ServerProcess) -> None:
    seated = await seat(server, roll_entry="roller")
    # Ann rolled first (by the banker's hand above), so it is Bob's turn.
    await expect_refusal(
        seated, seated.ann, {"type": "roll", "dice": [3, 4], "id": "r"}, "not_your_turn", "r"
    )
    await seated.bob.ok(type="roll", dice=[3, 3])
    await seated.bob.ok(type="bank")
    await expect_refusal(
        seated, seated.bob, {"type": "roll", "dice": [3, 4], "id": "r2"}, "already_banked", "r2"
    )
    await expect_refusal(seated, seated.ann, {"type": "roll", "id": "r3"}, "bad_message", "r3")


async def test_player_dice_in_virtual_mode_are_not_allowed(server: ServerProcess) -> None:
    seated = await seat(server, start=False, roll_entry="virtual")
    await seated.banker.ok(type="start")
    await expect_refusal(
        seated, seated.ann, {"type": "roll", "dice": [6, 6], "id": "r"}, "not_allowed", "r"
    )
    seq = await seated.ann.ok(type="roll")
    state = await seated.watcher.state_at_least(seq)
    die_a, die_b = state["last_roll"]["dice"]
    assert 1 <= die_a <= 6 and 1 <= die_b <= 6 and state["last_roll"]["by"] == seated.ann_id
    assert state["bank"] == (70 if die_a + die_b == 7 else die_a + die_b)


async def test_kick_after_start_is_not_in_lobby(room: Seated) -> None:
    await expect_refusal(
        room,
        room.banker,
        {"type": "kick", "player_id": room.bob_id, "id": "k"},
        "not_in_lobby",
        "k",
    )


async def test_a_wrong_token_closes_with_4401(server: ServerProcess) -> None:
    table = Table(server.base_url)
    client = await Client.connect(server.ws_url, table.code, "not-a-token")
    assert await client.wait_closed() == 4401
    other = Table(server.base_url)  # a real token of another room is no better
    client = await Client.connect(server.ws_url, table.code, other.banker_token)
    assert await client.wait_closed() == 4401


async def test_an_unknown_room_closes_with_4404(server: ServerProcess) -> None:
    client = await Client.connect(server.ws_url, "ZZZZ")
    assert await client.wait_closed() == 4404


async def test_a_frame_over_the_size_limit_closes_with_1009(room: Seated) -> None:
    before = room.fingerprint()
    await room.ann.send(json.dumps({"type": "bank", "pad": "x" * 5000}))
    assert await room.ann.wait_closed() == 1009
    assert room.fingerprint() == before
    await room.assert_usable(room.bob)


async def test_a_flood_is_rate_limited_then_closed_with_1008(server: ServerProcess) -> None:
    table = Table(server.base_url)
    table.join("Ann")
    before = table.state(), len(table.log())
    async with connect(
        f"{server.ws_url}/ws/rooms/{table.code}?token={table.players['Ann'][1]}"
    ) as ws:
        await ws.recv()  # welcome
        for _ in range(1000):
            try:
                await ws.send('{"type": "ping"}')
            except Exception:
                break
        codes = []
        try:
            async for raw in ws:
                codes.append(json.loads(raw).get("code") or json.loads(raw)["type"])
        except Exception:
            pass
        assert "rate_limited" in codes
        assert ws.close_code == 1008
    assert (table.state(), len(table.log())) == before


async def test_a_burst_under_the_limit_is_served_and_the_connection_stays(room: Seated) -> None:
    for n in range(10):
        await room.ann.send({"type": "ping", "id": f"p{n}"})
    await room.ann.wait_for(lambda m: m.get("id") == "p9")
    assert not any(m.get("code") == "rate_limited" for m in room.ann.messages)


async def test_a_spectator_roll_without_dice_is_bad_message_first(room: Seated) -> None:
    await expect_refusal(room, room.watcher, {"type": "roll", "id": "w"}, "bad_message", "w")
