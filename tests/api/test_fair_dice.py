"""Fair dice over real sockets: commit at create, client seeds, every draw logged and
re-checked by the reference verifier once the seed is revealed (docs/fair-dice.md)."""

from __future__ import annotations

import copy
import hashlib
import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx

from tests.client import Client, Table, assert_replays_to
from tests.conftest import ServerProcess, start_server
from tests.fair import (
    SCRIPT,
    UNLIMITED,
    assert_dice_check_out,
    client_seed,
    draws_in,
    roll_bank_to_the_end,
    roll_bunco_to_the_end,
    verify_dice,
    virtual_game_rolled,
)
from tests.games.bunco.bunco_night import BuncoNight, assert_bunco_replays
from tests.games.tournament.support import Seat, Tourney


def seat(base_url: str, code: str, name: str, seed: str | None, **more: Any) -> httpx.Response:
    body = {"name": name, **({"client_seed": seed} if seed else {})}
    return httpx.post(f"{base_url}/api/rooms/{code}/players", json=body, **more)


def seated(table: Table, name: str, seed: str | None) -> str:
    response = seat(table.base_url, table.code, name, seed)
    assert response.status_code == 201, response.text
    table.players[name] = (response.json()["player_id"], response.json()["token"])
    return str(response.json()["player_id"])


def run_verifier(events: list[dict[str, Any]]) -> subprocess.CompletedProcess[str]:
    """scripts/verify_dice.py as a reader runs it: the log on its stdin."""
    log = json.dumps({"events": events})
    return subprocess.run(
        [sys.executable, str(SCRIPT)], input=log, capture_output=True, text=True, check=False
    )


def revealed_seed(state: dict[str, Any], commit: str) -> str:
    [shown] = state["fair"]["revealed"]
    assert shown["commit"] == commit == hashlib.sha256(bytes.fromhex(shown["seed"])).hexdigest()
    return str(shown["seed"])


async def test_a_virtual_game_commits_then_reveals_and_every_roll_checks_out(
    server: ServerProcess,
) -> None:
    table = Table(server.base_url, rounds=2, roll_entry="virtual")
    created = table.log()[0]
    commit = created["fair"]["dice_commit"]
    assert created["data"] == {"game": "bank", "rounds": 2, "roll_entry": "virtual"}
    assert table.state()["fair"] == {"commit": commit, "revealed": []}
    seated(table, "Ann", client_seed(1))
    seated(table, "Bob", None)  # a third-party client may send none
    banker = await Client.connect(server.ws_url, table.code, table.banker_token)
    await banker.ok(type="start")
    for _ in range(4):
        await banker.ok(type="roll")
    late = seat(
        server.base_url,
        table.code,
        "Cy",
        client_seed(3),
        headers={"Authorization": f"Bearer {table.banker_token}"},
    )
    assert late.status_code == 201, late.text
    before_the_end = json.dumps([table.state(), table.log()])
    final = await roll_bank_to_the_end(banker, table)
    events = table.log()

    seed = revealed_seed(final, commit)
    assert seed not in before_the_end
    assert [e["fair"]["client_seed"] for e in events if "client_seed" in e.get("fair", {})] == [
        client_seed(1),
        client_seed(3),
    ]
    rolls = [e for e in events if e["type"] == "roll"]
    assert [e["fair"]["drawn"][0]["values"] for e in rolls] == [e["data"]["dice"] for e in rolls]
    assert [d["n"] for e in rolls for d in e["fair"]["drawn"]] == list(range(1, len(rolls) + 1))
    assert events[-1]["fair"]["dice_reveal"]["seed"] == seed
    assert verify_dice.check(events) == (len(rolls), None)
    assert_replays_to(events, final)
    run = run_verifier(events)
    assert (run.returncode, run.stdout) == (0, f"all {len(rolls)} rolls check out\n")

    one_die = copy.deepcopy(events)  # the event's own dice changed
    third = rolls[2]["seq"] - 1
    one_die[third]["data"]["dice"][0] = one_die[third]["data"]["dice"][0] % 6 + 1
    assert verify_dice.check(one_die) == (
        0,
        f"event {rolls[2]['seq']} does not show what was drawn",
    )
    both = copy.deepcopy(one_die)  # and what was drawn with it
    both[third]["fair"]["drawn"][0]["values"] = both[third]["data"]["dice"]
    assert verify_dice.check(both) == (2, f"roll 3 (event {rolls[2]['seq']}) does not check out")
    run = run_verifier(both)
    assert (run.returncode, run.stderr) == (
        1,
        f"roll 3 (event {rolls[2]['seq']}) does not check out\n",
    )
    other_seed = copy.deepcopy(events)
    other_seed[-1]["fair"]["dice_reveal"]["seed"] = "00" * 32
    assert verify_dice.check(other_seed)[1] == (
        f"the seed revealed at event {events[-1]['seq']} is not the one committed"
    )


def test_a_bad_client_seed_is_refused_and_seats_nobody(server: ServerProcess) -> None:
    table = Table(server.base_url, roll_entry="virtual")
    before = table.log()
    for bad in ("short", "G" * 32, "ab" * 40, 12345678901234567890):
        response = seat(server.base_url, table.code, "Ann", bad)  # type: ignore[arg-type]
        assert response.status_code == 422, bad
        assert response.json()["error"]["code"] == "bad_request"
    assert table.log() == before and table.state()["players"] == []


def test_rooms_that_never_draw_commit_to_nothing(server: ServerProcess) -> None:
    table = Table(server.base_url, roll_entry="banker")
    assert "fair" not in table.log()[0] and "fair" not in table.state()
    seated(table, "Ann", client_seed(1))
    assert "fair" not in table.log()[-1]


async def test_bunco_seating_by_lot_and_every_virtual_roll_check_out(
    fresh_server: Callable[..., ServerProcess],
) -> None:
    server = fresh_server(**UNLIMITED)
    night = BuncoNight(server.base_url, sets=1, roll_entry="virtual")
    for n in range(9):
        night.join(f"P{n}")  # seeds through the helper: none
    kicked = night.players.pop("P4")[0]
    for n in range(9, 13):
        response = night.http.post(
            f"{night.prefix}/players", json={"name": f"P{n}", "client_seed": client_seed(n)}
        )
        body = response.json()
        night.players[f"P{n}"] = (body["player_id"], body["token"])
    banker, _, _ = await night.connect([server.ws_url])
    await banker.ok(type="kick", player_id=kicked)
    start = await banker.ok(type="start")
    started = night.log()[start - 1]
    assert started["fair"]["drawn"][0]["shuffle"] is True
    assert sorted(started["fair"]["drawn"][0]["values"]) == list(range(12))
    assert assert_dice_check_out(night.log()) == 0  # waiting for the seed
    final = await roll_bunco_to_the_end(banker, night)
    events = night.log()
    revealed_seed(final, events[0]["fair"]["dice_commit"])
    assert assert_dice_check_out(events) == draws_in(events) > 1
    assert_bunco_replays(events, final)
    swapped = copy.deepcopy(events)  # two players' seats swapped
    seating = swapped[start - 1]["data"]["seating"]
    seating[0][0], seating[1][0] = seating[1][0], seating[0][0]
    assert verify_dice.check(swapped)[1] == f"event {start} does not show what was drawn"


async def test_the_seed_survives_a_restart_mid_game(tmp_path: Path) -> None:
    env = {"BANKIT_DATA_DIR": str(tmp_path / "data")}
    server = start_server(tmp_path, env)
    table, commit = await virtual_game_rolled(server, 3)
    server.kill()
    server = start_server(tmp_path, env, port=server.port)
    try:
        banker = await Client.connect(server.ws_url, table.code, table.banker_token)
        final = await roll_bank_to_the_end(banker, table)
        revealed_seed(final, commit)
        events = table.log()
        assert assert_dice_check_out(events) == draws_in(events) > 3
    finally:
        server.kill()


def test_the_reference_verifier_is_short_and_in_the_spec_verbatim() -> None:
    code = SCRIPT.read_text()
    assert len([line for line in code.splitlines() if line.strip()]) <= 40
    assert f"```python\n{code}```" in (SCRIPT.parents[1] / "docs" / "fair-dice.md").read_text()
    assert verify_dice.below(iter([255, 252, 251]), 6) == 251 % 6  # 252..255 are skipped


async def test_an_undo_that_reopens_the_game_draws_from_a_fresh_committed_seed(
    server: ServerProcess,
) -> None:
    table, first_commit = await virtual_game_rolled(server, 0)
    banker = await Client.connect(server.ws_url, table.code, table.banker_token)
    final = await roll_bank_to_the_end(banker, table)
    reveal = table.log()[-1]["fair"]["dice_reveal"]
    assert revealed_seed(final, first_commit) == reveal["seed"]
    await banker.ok(type="undo")  # the roll that ended the game
    reopened = await roll_bank_to_the_end(banker, table)
    events = table.log()
    second = events[-1]["fair"]["dice_reveal"]
    assert second["commit"] == reveal["next_commit"] != first_commit
    assert [r["commit"] for r in reopened["fair"]["revealed"]] == [second["commit"]]
    assert assert_dice_check_out(events) == draws_in(events)
    assert_replays_to(events, reopened)


async def test_a_virtual_tournament_reveals_and_its_rerolls_and_table_rolls_check_out(
    server: ServerProcess,
) -> None:
    tourney = Tourney(server.base_url, server.ws_url, games=1, rounds=1, roll_entry="virtual")
    for n, name in enumerate(("Ann", "Bob")):
        body = {"name": name, "client_seed": client_seed(n + 1)}
        seated = httpx.post(f"{server.base_url}/api/tournaments/{tourney.code}/players", json=body)
        tourney.ids[name], tourney.tokens[name] = seated.json()["player_id"], seated.json()["token"]
    ann, bob = tourney.ids["Ann"], tourney.ids["Bob"]
    organiser = await tourney.open()
    [table] = await tourney.next()
    seat = await Seat.open(tourney, table)
    await seat.banker.ok(type="start")
    await seat.banker.ok(type="roll")  # drawn by the table room (a safe roll)
    await seat.phones[ann].ok(type="bank")
    await seat.phones[bob].ok(type="bank")  # the same BANK: tied, so rerolled
    await tourney.status("scoring")
    await organiser.ok(type="score")
    await tourney.status("reroll")
    for _ in range(30):  # fair dice tie 30 times in a row once in 10^28
        if tourney.state()["status"] != "reroll":
            break
        await organiser.ok(type="reroll", player_id=ann)
        await organiser.ok(type="reroll", player_id=bob)
    await tourney.status("finished")
    tables = httpx.get(f"{server.base_url}/api/rooms/{table['code']}/log").json()["events"]
    assert assert_dice_check_out(tables) == draws_in(tables) == 1
    joined = [e["fair"]["client_seed"] for e in tourney.log() if e["type"] == "join"]
    assert joined == [client_seed(1), client_seed(2)]
    events = tourney.log()
    assert "dice_reveal" in events[-1]["fair"]
    rerolls = [e for e in events if e["type"] == "reroll"]
    assert len(rerolls) >= 2 and all(e["fair"]["drawn"] for e in rerolls)
    assert assert_dice_check_out(events) == draws_in(events)  # rerolls and the tables' codes


async def test_the_fresh_seed_of_a_reveal_survives_a_restart(tmp_path: Path) -> None:
    env = {"BANKIT_DATA_DIR": str(tmp_path / "data")}
    server = start_server(tmp_path, env)
    table, _ = await virtual_game_rolled(server, 0)
    banker = await Client.connect(server.ws_url, table.code, table.banker_token)
    await roll_bank_to_the_end(banker, table)  # revealed, and a fresh seed committed
    await banker.close()
    server.kill()
    server = start_server(tmp_path, env, port=server.port)
    try:
        banker = await Client.connect(server.ws_url, table.code, table.banker_token)
        await banker.ok(type="undo")  # reopened: the next rolls come from the fresh seed
        await roll_bank_to_the_end(banker, table)
        events = table.log()
        assert [e["type"] for e in events].count("undo") == 1
        assert assert_dice_check_out(events) == draws_in(events)
    finally:
        server.kill()
