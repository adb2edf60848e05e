"""The reference verifier of docs/fair-dice.md (scripts/verify_dice.py), for every test's log."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import httpx

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "verify_dice.py"
_spec = importlib.util.spec_from_file_location("verify_dice", SCRIPT)
assert _spec is not None and _spec.loader is not None
verify_dice: Any = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(verify_dice)


def draws_in(events: list[dict[str, Any]]) -> int:
    return sum(len(e.get("fair", {}).get("drawn", [])) for e in events)


def assert_dice_check_out(events: list[dict[str, Any]]) -> int:
    """Every draw of a room's log checks out once its seed is revealed (the number checked);
    before that, the draws only wait for it."""
    count, wrong = verify_dice.check(events)
    waiting = draws_in(events) - count
    assert wrong is None if waiting == 0 else wrong == f"{waiting} rolls wait for their seed"
    return int(count)


async def acked(client: Any, **command: Any) -> int:
    """A command that must be accepted, given time on a loaded machine; its seq."""
    answer = await client.command(timeout=30, **command)
    assert answer["type"] == "ack", answer
    return int(answer["seq"])


# A whole night is hundreds of commands from one socket: past the per-socket rate limit
# (BANKIT_RATE_PER_SECOND, whose refusals name no command), so the tests that roll one
# through run on a server of their own without it.
UNLIMITED = {"BANKIT_RATE_PER_SECOND": "100000", "BANKIT_RATE_BURST": "100000"}


def client_seed(n: int) -> str:
    """A phone's seed as the page makes one: 32 hex digits."""
    return f"{n:032x}"


async def roll_bank_to_the_end(banker: Any, room: Any, limit: int = 2000) -> dict[str, Any]:
    """The banker rolls virtual dice until the game is over; its final state."""
    state = room.state()
    for _ in range(limit):
        if state["status"] == "finished":
            return state  # type: ignore[no-any-return]
        state = await banker.state_at_least(await acked(banker, type="roll"), timeout=30)
    raise AssertionError("the game did not end")


async def roll_bunco_to_the_end(banker: Any, night: Any, limit: int = 5000) -> dict[str, Any]:
    """The host rolls every table's virtual dice (and rings) until the night is over."""
    state = night.state()
    for _ in range(limit):
        if state["status"] == "finished":
            return state  # type: ignore[no-any-return]
        if state["phase"] == "waiting":
            seq = await acked(banker, type="ring")
        else:
            rolling = [t["table"] for t in state["tables"] if t["rolloff"]] or [0]
            seq = await acked(banker, type="roll", table=rolling[0])
        state = await banker.state_at_least(seq, timeout=30)
    raise AssertionError("the night did not end")


async def virtual_game_rolled(server: Any, rolls: int) -> tuple[Any, str]:
    """A 2-round virtual BANK game on `server`, Ann and Bob seated with seeds, started and
    rolled `rolls` times by its banker (whose socket is closed again); the table and the
    commitment of its create event."""
    from tests.client import Client, Table  # noqa: PLC0415  (tests.client imports this module)

    table = Table(server.base_url, rounds=2, roll_entry="virtual")
    for n, name in enumerate(("Ann", "Bob")):
        body = {"name": name, "client_seed": client_seed(n + 1)}
        seat = httpx.post(f"{server.base_url}/api/rooms/{table.code}/players", json=body)
        assert seat.status_code == 201, seat.text
    banker = await Client.connect(server.ws_url, table.code, table.banker_token)
    await banker.ok(type="start")
    for _ in range(rolls):
        await banker.ok(type="roll")
    await banker.close()
    return table, str(table.log()[0]["fair"]["dice_commit"])
