"""One process's journal: events go to the log with their notes, the snapshot only now
and then, and a room restored from the last snapshot and the notes after it is the
room that was live (the ids it answered, its tokens, its seq and chain)."""

from __future__ import annotations

import asyncio
import sqlite3
import time
from pathlib import Path

import orjson
import pytest

from app.bus.base import BusUnavailable
from app.bus.sqlite.bus import SqliteBus, file_of
from app.rooms.envelope import CommandEnvelope
from app.rooms.registry import RoomRegistry
from tests.rooms.test_registry_snapshot import one_process


def command(role: str, pid: str | None, id_: str | None, **cmd: object) -> CommandEnvelope:
    server = cmd.get("type") == "join"
    th = f"{pid}".ljust(64, "0") if server else None
    return CommandEnvelope(
        role,
        pid if not server else None,
        id_,
        orjson.dumps(cmd).decode(),
        "",
        "",
        th=th,
        server=server,
    )


async def committed(registry: RoomRegistry, code: str, seq: int) -> dict[str, object]:
    actor = registry.actors[code]
    deadline = time.monotonic() + 10
    while (record := orjson.loads(await actor.snapshot()))["seq"] < seq:
        assert time.monotonic() < deadline, f"seq {seq} was never committed"
        await asyncio.sleep(0.01)
    return dict(record)


def crash_copy(source: Path, target: Path) -> None:
    """The file as a kill -9 would leave it: what is committed, nothing saved at stop."""
    target.mkdir()
    with sqlite3.connect(file_of(source)) as src, sqlite3.connect(file_of(target)) as dst:
        src.backup(dst)


async def test_a_room_restored_from_its_snapshot_and_notes_is_the_live_room(
    tmp_path: Path,
) -> None:
    async with one_process(tmp_path / "live") as registry:
        games = registry.games
        code = (await registry.create(games["bank"], {"rounds": 3}, ["b" * 64]))["code"]
        script = [
            command("system", "p1", None, type="join", player_id="p1", name="Ann"),
            command("system", "p2", None, type="join", player_id="p2", name="Bob"),
            command("system", "p3", None, type="join", player_id="p3", name="Cy"),
            command("banker", None, "c1", type="kick", player_id="p3"),
            CommandEnvelope(  # the banker's role moves to a new token (the old one stops)
                "banker",
                None,
                "h1",
                '{"type":"hand_over","principal":"banker"}',
                "",
                "",
                th="n" * 64,
                server=True,
            ),
            command("banker", None, "c2", type="start"),
            command("banker", None, "c3", type="roll", dice=[3, 4]),
            command("banker", None, "c4", type="roll", dice=[6, 4]),
            command("banker", None, "c5", type="roll", dice=[1, 2]),
            command("player", "p1", "b1", type="bank"),
            command("player", "p2", "b1", type="unbank"),  # refused: costs nothing durable
        ]
        for envelope in script:
            assert registry.submit_nowait(code, envelope)
        live = await committed(registry, code, 11)
        await asyncio.sleep(0.05)  # the refusal's batch, if apart, is answered by now
        crash_copy(tmp_path / "live", tmp_path / "crashed")
        with sqlite3.connect(file_of(tmp_path / "crashed")) as conn:
            (raw,) = conn.execute("SELECT snapshot FROM rooms WHERE code = ?", (code,)).fetchone()
            notes = [
                orjson.loads(note)
                for (note,) in conn.execute(
                    "SELECT note FROM entries WHERE code = ? AND n > 0 ORDER BY n", (code,)
                )
            ]
        assert orjson.loads(raw)["seq"] == 1, "only the creation's snapshot is stored"
        assert len(notes) == 10, "one note per event; the refusal wrote nothing"
        ids = [None] * 3 + ["c1", "h1", "c2", "c3", "c4", "c5", "b1"]
        assert [n.get("id") for n in notes] == ids
        changes = [{k: n[k] for k in ("tokens_set", "tokens_del") if k in n} for n in notes]
        assert changes[4] == {"tokens_set": {"n" * 64: "banker"}, "tokens_del": ["b" * 64]}
        assert all(changes[n] for n in (0, 3, 4)), "joins, kicks, hand-overs: the change only"

    async with one_process(tmp_path / "crashed") as again:
        restored = await again.snapshot(code)
        assert restored is not None
        assert restored == live
        assert restored["accepted"] == {
            "banker": {"c1": 5, "h1": 6, "c2": 7, "c3": 8, "c4": 9, "c5": 10},
            "p1": {"b1": 11},
        }
        assert "p3" not in restored["tokens"].values(), "the kicked player's token is gone"
        assert restored["tokens"].get("n" * 64) == "banker" and "b" * 64 not in restored["tokens"]


async def test_a_reader_while_a_batch_waits_for_its_commit_reads_after_it(
    tmp_path: Path,
) -> None:
    """The record a reader gets is made from the room only once what it shows is on
    disk: a welcome never shows a state that a failed write could take back."""
    async with one_process(tmp_path) as registry:
        code = (await registry.create(registry.games["bank"], {"rounds": 3}, ["b" * 64]))["code"]
        actor, bus = registry.actors[code], registry.bus
        assert isinstance(bus, SqliteBus)
        join = command("system", "p1", None, type="join", player_id="p1", name="Ann")
        while not actor.waiting:  # the actor's task has started and waits for its inbox
            await asyncio.sleep(0)
        assert registry.submit_nowait(code, join)
        assert actor.room.seq == 2, "applied in memory at once (one hop); its commit is due"
        assert len((await bus.load_journal(code))[1]) == 1, "and not yet on disk"
        record = await registry.snapshot(code)
        assert record is not None and record["seq"] == 2
        assert len((await bus.load_journal(code))[1]) == 2, "read only once it was on disk"

        second = command("system", "p2", None, type="join", player_id="p2", name="Bob")
        assert registry.submit_nowait(code, second)
        assert actor.room.seq == 3
        bus._db()[0].conn.close()  # the disk fails under the commit
        with pytest.raises(BusUnavailable):
            await actor.snapshot()


async def test_a_command_taken_in_one_hop_never_overtakes_the_inbox(tmp_path: Path) -> None:
    """One process applies a socket's command in the turn it arrives (`RoomActor.take`)
    only when nothing waits before it; otherwise it queues behind, in arrival order."""
    async with one_process(tmp_path) as registry:
        code = (await registry.create(registry.games["bank"], {"rounds": 3}, ["b" * 64]))["code"]
        actor = registry.actors[code]
        while not actor.waiting:
            await asyncio.sleep(0)
        ann = command("system", "p1", None, type="join", player_id="p1", name="Ann")
        await registry.submit(code, ann)  # queued: the task applies it when it runs
        bob = command("system", "p2", None, type="join", player_id="p2", name="Bob")
        assert registry.submit_nowait(code, bob)
        assert actor.room.seq == 1, "Bob's join did not overtake Ann's"
        deadline = time.monotonic() + 10
        while actor.room.seq < 3 and time.monotonic() < deadline:
            await asyncio.sleep(0.01)
        record = await registry.snapshot(code)
        assert record is not None and [p["id"] for p in record["state"]["players"]] == ["p1", "p2"]

        cid = command("banker", None, "c1", type="start")
        assert registry.submit_nowait(code, cid)  # nothing before it: applied at once
        assert actor.room.seq == 4 and not actor.waiting, "its write is in flight"
        assert registry.submit_nowait(code, cid)  # the same id again: queued behind it
        assert actor.room.seq == 4
        record = await registry.snapshot(code)
        assert record is not None and record["seq"] == 4
        while actor.room.accepted.get("banker", {}).get("c1") != 4 or not actor.waiting:
            assert time.monotonic() < deadline
            await asyncio.sleep(0.01)
        assert actor.room.seq == 4, "the retry was answered from the dedupe table"
