"""Effects run exactly once, across a crash between the commit and the effect's end.

In one process with the memory bus: the toy game's `rematch` asks for a room with
its players seated. The first owner dies (its handler is made to fail) after the
room was made and before it could report the effect done; the next owner carries
the effect out again from the snapshot: still one room, one seat each, one tell.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import orjson
import pytest

from app.bus.memory import MemoryBus
from app.config import Settings
from app.games.registry import GameRegistry
from app.games.seam import Effect
from app.rooms.effects import Source
from app.rooms.envelope import CommandEnvelope
from app.rooms.eventlog import verify
from app.rooms.registry import RoomRegistry
from app.rooms.spawning import Spawner
from tests.bank_support import BANK, TOURNAMENT, table_options
from tests.bus.conftest import Recorder, until
from tests.games.highroll import make_game

SETTINGS = Settings()


@pytest.fixture
async def rooms() -> AsyncIterator[tuple[RoomRegistry, MemoryBus, Recorder]]:
    recorder = Recorder()
    bus = MemoryBus()
    await bus.start(recorder.on_frame, recorder.on_reply)
    registry = RoomRegistry(bus, SETTINGS, GameRegistry([make_game(SETTINGS)]))
    await registry.start()
    yield registry, bus, recorder
    await registry.close()
    await bus.close()


async def send(registry: RoomRegistry, code: str, role: str, pid: str | None, **cmd: Any) -> None:
    text = orjson.dumps(cmd).decode()
    await registry.submit(code, CommandEnvelope(role, pid, cmd.get("id"), text, "n", "k"))


async def state(registry: RoomRegistry, code: str) -> dict[str, Any]:
    snapshot = await registry.snapshot(code)
    assert snapshot is not None
    return snapshot


async def finished_room(registry: RoomRegistry) -> str:
    game = registry.games["highroll"]
    view = await registry.create(game, {}, ["banker-hash"])
    code = str(view["code"])
    join = game.server_command({"type": "join", "player_id": "ann", "name": "Ann"})
    await registry.submit(
        code, CommandEnvelope("player", "ann", None, join, th="ann-hash", server=True)
    )
    await send(registry, code, "banker", None, type="start")
    await send(registry, code, "player", "ann", type="roll")
    await until(lambda: registry.actors[code].room.finished, what="the game to finish")
    return code


async def test_an_effect_is_carried_out_once_though_its_first_owner_died_midway(
    rooms: tuple[RoomRegistry, MemoryBus, Recorder],
) -> None:
    registry, bus, _ = rooms
    spawner = Spawner(registry)
    crashes = 0

    async def dies_after_the_work(source: Source, effect: Effect) -> None:
        nonlocal crashes
        await spawner.create_room(source, effect)
        if crashes == 0:
            crashes += 1
            raise RuntimeError("the owner died before it could say the effect was done")

    registry.effects.register("create_room", dies_after_the_work)
    code = await finished_room(registry)
    await send(registry, code, "banker", None, type="rematch", id="r1")
    await until(lambda: crashes == 1, what="the first try")
    pending = (await state(registry, code))["effects"]
    assert [effect["kind"] for effect in pending] == ["create_room"]  # still to do

    # Takeover: the owner goes, another adopts the room from its snapshot.
    await registry.actors[code].stop()
    assert await registry.adopt(code)
    await until(lambda: not registry.actors[code].room.effects, what="the effect to be done")

    parent = await state(registry, code)
    child_code = parent["state"]["next_code"]
    assert child_code is not None
    spawned = [e for e in await registry.log_entries(code) or [] if e["type"] == "spawned"]
    assert len(spawned) == 1
    made = [c for c in bus._rooms if (await state(registry, c)).get("origin")]
    assert made == [child_code]
    child_log = await registry.log_entries(child_code) or []
    assert [e["type"] for e in child_log] == ["create"]  # seated by its first event
    assert child_log[0]["data"]["seats"] == [{"player_id": "ann", "name": "Ann"}]
    assert verify(child_log) and verify(await registry.log_entries(code) or [])
    child = await state(registry, child_code)
    assert child["tokens"] == {"banker-hash": "banker", "ann-hash": "ann"}
    assert [p["id"] for p in child["state"]["players"]] == ["ann"]


async def test_a_failing_event_leaves_no_gap_in_the_log(
    rooms: tuple[RoomRegistry, MemoryBus, Recorder],
) -> None:
    """An event whose application raises is answered internal_error; seq does not move."""
    registry, _, recorder = rooms
    code = await finished_room(registry)
    rules = registry.actors[code].room.rules
    real_evolve = rules.evolve

    def evolve_fails_on_rematch(state: Any, event: Any, seq: int) -> Any:
        if event.type == "rematch":
            raise RuntimeError("a bug in the rules")
        return real_evolve(state, event, seq)

    rules.evolve = evolve_fails_on_rematch  # type: ignore[method-assign]
    try:
        before = (await state(registry, code))["seq"]
        await send(registry, code, "banker", None, type="rematch", id="boom")
        answer = await until(lambda: [r for k, r in recorder.replies if b'"boom"' in r])
        assert orjson.loads(answer[0])["code"] == "internal_error"
        assert (await state(registry, code))["seq"] == before
    finally:
        rules.evolve = real_evolve  # type: ignore[method-assign]
    await send(registry, code, "banker", None, type="rematch", id="fine")
    await until(lambda: [r for k, r in recorder.replies if b'"fine"' in r])
    log = await registry.log_entries(code) or []
    assert [e["seq"] for e in log] == list(range(1, len(log) + 1))
    assert verify(log) and log[-1]["type"] in ("rematch", "spawned")


async def test_a_tell_to_a_room_that_is_gone_sends_the_source_its_fallback_once(
    rooms: tuple[RoomRegistry, MemoryBus, Recorder],
) -> None:
    """A freed room can no longer change: the source hears `if_gone` instead (a
    tournament's lock of a freed table), deduplicated by the effect's id like any tell."""
    registry, _, _ = rooms
    spawner = Spawner(registry)
    code = await finished_room(registry)
    fallback = {"type": "spawned", "effect": "gone", "code": "GONE"}
    told = Effect("tell", f"{code}.9.t", {"code": "ZZZZ", "command": {}, "if_gone": fallback})
    for _ in range(2):  # carried out again after a takeover: still once
        await spawner.tell(Source(code, {}), told)
    await send(registry, code, "banker", None, type="rematch", id="after")  # behind both
    room = registry.actors[code].room
    await until(lambda: "after" in room.accepted.get("banker", {}), what="both tells applied")
    log = await registry.log_entries(code) or []
    assert [e["data"] for e in log if e["type"] == "spawned"][:1] == [{"code": "GONE"}]
    assert sum(e["data"].get("code") == "GONE" for e in log) == 1
    silent = Effect("tell", f"{code}.10.t", {"code": "ZZZZ", "command": {}})
    await spawner.tell(Source(code, {}), silent)  # no fallback: nothing to say


async def test_a_report_whose_tell_failed_is_replaced_never_told_after_a_newer_one() -> None:
    """A tournament table's report that could not be told stays pending for the next
    owner; a newer report replaces it, so that the next owner never tells the parent an
    older status after a newer one ("playing" after "finished" would reopen the table)."""
    recorder = Recorder()
    bus = MemoryBus()
    await bus.start(recorder.on_frame, recorder.on_reply)
    registry = RoomRegistry(bus, SETTINGS, GameRegistry([BANK]))
    await registry.start()
    tries: list[str] = []  # the status of each report the handler was asked to tell
    told: list[str] = []

    async def fails_the_first_time(source: Source, effect: Effect) -> None:
        tries.append(effect.data["command"]["status"])
        if len(tries) == 1:
            raise RuntimeError("the parent's inbox could not be reached")
        told.append(effect.data["command"]["status"])

    registry.effects.register("tell", fails_the_first_time)
    try:
        options = table_options()
        code = (await registry.create(BANK, options, ["b" * 64], parent=TOURNAMENT))["code"]
        room = registry.actors[code].room
        await send(registry, code, "banker", None, type="start", id="s")
        await until(lambda: tries, what="the first report's tell")
        assert [e.data["command"]["status"] for e in room.effects.values()] == ["playing"]
        for n, dice in enumerate(([6, 4], [6, 4], [6, 4], [3, 4])):  # the 7 ends the game
            await send(registry, code, "banker", None, type="roll", dice=dice, id=f"r{n}")
        await until(lambda: told, what="the finished table's report")
        await until(lambda: not room.effects, what="nothing left to tell")

        await registry.actors[code].stop()  # takeover: the next owner runs what is pending
        assert await registry.adopt(code)
        await send(registry, code, "banker", None, type="roll", dice=[1, 1], id="after")
        answer = await until(lambda: [r for _, r in recorder.replies if b'"after"' in r])
        assert orjson.loads(answer[0])["type"] == "error"  # the game is over: refused
        assert tries == ["playing", "finished"] and told == ["finished"]
    finally:
        await registry.close()
        await bus.close()
