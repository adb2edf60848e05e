"""House rules over real sockets: each variant is an option of `create`, plays by it end to
end, is carried to "Play again" and a tournament's tables, and a replay of the log agrees."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx

from tests.client import Client, Table, assert_replays_to
from tests.conftest import ServerProcess
from tests.fair import UNLIMITED, assert_dice_check_out, draws_in, roll_bunco_to_the_end
from tests.games.bunco.bunco_night import BuncoNight, assert_bunco_replays
from tests.games.tournament.support import Tourney

BANK_RULES = {"safe_rolls": 4, "seven_points": 50, "min_bank": 100, "doubles": "double_add"}


async def test_a_bank_game_plays_by_its_house_rules_and_plays_again_by_them(
    server: ServerProcess,
) -> None:
    table = Table(server.base_url, rounds=1, **BANK_RULES)
    assert table.log()[0]["data"] == {
        "game": "bank",
        "rounds": 1,
        "roll_entry": "banker",
        **BANK_RULES,
    }
    assert table.state()["house_rules"] == BANK_RULES
    ann, bob = table.join("Ann"), table.join("Bob")
    banker = await Client.connect(server.ws_url, table.code, table.banker_token)
    phone = await Client.connect(server.ws_url, table.code, table.players["Ann"][1])
    await banker.ok(type="start")
    banks = []
    for dice in ([3, 4], [2, 2], [1, 2]):  # safe: a 7 adds 50
        banks.append((await banker.state_at_least(await banker.ok(type="roll", dice=dice)))["bank"])
    assert banks == [50, 54, 57]
    before = table.state()
    refused = await phone.refused("below_min_bank", type="bank")
    assert "100" in refused["message"] and table.state()["seq"] == before["seq"]
    state = await banker.state_at_least(await banker.ok(type="roll", dice=[3, 4]))  # 4th: safe
    assert state["bank"] == 107
    await phone.ok(type="bank")
    state = await banker.state_at_least(await banker.ok(type="roll", dice=[3, 3]))  # risky
    assert state["bank"] == 107 * 2 + 6
    await banker.ok(type="bank", player_id=bob)
    final = await banker.state_at_least(table.state()["seq"])
    assert final["status"] == "finished"
    assert {p["id"]: p["score"] for p in final["players"]} == {ann: 107, bob: 220}
    assert_replays_to(table.log(), table.state())

    await banker.ok(type="play_again")
    new_code = (
        await banker.wait_for(lambda m: m.get("type") == "state" and m["state"]["next_game"])
    )["state"]["next_game"]
    again = httpx.get(f"{server.base_url}/api/rooms/{new_code}").json()["state"]
    assert again["house_rules"] == BANK_RULES
    created = httpx.get(f"{server.base_url}/api/rooms/{new_code}/log").json()["events"][0]
    assert {k: created["data"][k] for k in BANK_RULES} == BANK_RULES


def test_house_rules_out_of_range_create_nothing(server: ServerProcess) -> None:
    for bad in (
        {"safe_rolls": 0},
        {"safe_rolls": 6},
        {"safe_rolls": "4"},
        {"seven_points": -1},
        {"min_bank": 0},
        {"doubles": "triple"},
    ):
        made = httpx.post(f"{server.base_url}/api/rooms", json={"game": "bank", **bad})
        assert made.status_code == 422, bad
        assert made.json()["error"]["code"] == "bad_request"
    for bad in ({"bell_at": 4}, {"three_of_a_kind": 22}, {"movement": "shuffle"}):
        made = httpx.post(f"{server.base_url}/api/rooms", json={"game": "bunco", **bad})
        assert made.status_code == 422, bad
    made = httpx.post(f"{server.base_url}/api/tournaments", json={"safe_rolls": 9})
    assert (made.status_code, made.json()["error"]["code"]) == (409, "bad_safe_rolls")


async def test_a_tournament_carries_its_house_rules_to_every_table(server: ServerProcess) -> None:
    tourney = Tourney(server.base_url, server.ws_url, games=1, rounds=1, safe_rolls=1)
    assert tourney.state()["house_rules"] == {"safe_rolls": 1}
    for name in ("Ann", "Bob"):
        tourney.join(name)
    await tourney.open()
    [table] = await tourney.next()
    room = httpx.get(f"{server.base_url}/api/rooms/{table['code']}").json()["state"]
    assert room["house_rules"] == {"safe_rolls": 1}
    banker = await Client.connect(server.ws_url, table["code"], tourney.organiser_token)
    await banker.ok(type="start")
    await banker.ok(type="roll", dice=[2, 3])  # the one safe roll
    state = await banker.state_at_least(await banker.ok(type="roll", dice=[3, 4]))
    assert state["status"] == "finished"  # a 7 on the second roll ends the round


def movement_holds(state: dict[str, Any], common: bool) -> None:
    """Each round's seating follows from the round before it by the movement named."""
    log, count = state["rounds_log"], len(state["tables"])
    for before, after in zip(log, log[1:], strict=False):
        if before["set"] != after["set"]:
            continue
        results, seats = before["tables"], [set(t["seats"]) for t in after["tables"]]
        for index, result in enumerate(results):
            source = results[(index + 1) % count]
            stay = result["winners"] if common and index == 0 else result["losers"]
            come = results[0]["losers"] if common and index == count - 1 else source["winners"]
            assert seats[index] == {*stay, *come}, (index, before, after)


async def test_a_bunco_night_plays_by_its_house_rules(server: ServerProcess) -> None:
    night = BuncoNight(
        server.base_url, roll_entry="banker", bell_at=5, three_of_a_kind=10, movement="common"
    )
    assert night.state()["house_rules"] == {
        "bell_at": 5,
        "three_of_a_kind": 10,
        "movement": "common",
    }
    for n in range(8):
        night.join(f"P{n}")
    banker, _, _ = await night.connect([server.ws_url])
    await banker.ok(type="start")
    state = await banker.state_at_least(await banker.ok(type="roll", table=1, dice=[2, 2, 2]))
    assert state["tables"][1]["scores"] == [10, 0]  # three of a kind of another number: 10
    state = await banker.state_at_least(await banker.ok(type="roll", table=0, dice=[1, 1, 2]))
    assert (state["tables"][0]["scores"], state["phase"]) == ([2, 0], "playing")
    state = await banker.state_at_least(await banker.ok(type="roll", table=0, dice=[1, 1, 1]))
    assert state["phase"] == "waiting" and state["round"] == 2  # 23 >= 5 rang the bell
    movement_holds(state, common=True)
    assert_bunco_replays(night.log(), night.state())


async def test_a_virtual_bunco_night_with_the_common_movement_plays_to_the_end(
    fresh_server: Callable[..., ServerProcess],
) -> None:
    server = fresh_server(**UNLIMITED)
    night = BuncoNight(server.base_url, roll_entry="virtual", bell_at=5, movement="common")
    for n in range(12):
        night.join(f"P{n}")
    banker, _, _ = await night.connect([server.ws_url])
    await banker.ok(type="start")
    final = await roll_bunco_to_the_end(banker, night)
    assert len(final["rounds_log"]) == 6
    movement_holds(final, common=True)
    events = night.log()
    assert_bunco_replays(events, final)
    assert assert_dice_check_out(events) == draws_in(events)
