"""Views built from kept renderings (app/games/rendered.py) are the views built afresh.

A finished round, a roll, a BANK, a seat is rendered once and shared by every later
view; a long game's `rounds_log` is encoded once and spliced into every state's text.
Whatever a game does (undo, unbank, late seats, a restore), the live room's view and
its text must equal those of the same log replayed into new objects, which no cache
has seen."""

from __future__ import annotations

import random
import weakref
from dataclasses import replace

import orjson

from app.games.bank.state import Player, RoundResult
from app.games.rendered import Kept, Rendered
from app.games.seam import changed
from app.rooms.envelope import CommandEnvelope, PresenceEnvelope
from app.rooms.rendering import encode_view
from app.rooms.room import Room
from tests.bank_support import BANK, DiceChance

PLAYERS = [f"p{n}" for n in range(5)]


def envelope(role: str, pid: str | None, **cmd: object) -> CommandEnvelope:
    server = cmd["type"] == "join"
    return CommandEnvelope(
        role, None if server else pid, None, orjson.dumps(cmd).decode(), server=server
    )


def play(seed: int, events: int) -> tuple[Room, list[dict[str, object]]]:
    """A random game of rolls, BANKs (some by the banker, some undone), undos, late
    seats, phones coming and going; the log it made."""
    rng = random.Random(seed)
    room, entry = Room.create("K7QF", BANK, {"rounds": 30}, ["b" * 64], 1, 16)
    log = [entry]
    script = [envelope("system", p, type="join", player_id=p, name=p.upper()) for p in PLAYERS]
    script.append(envelope("banker", None, type="start"))
    for envelope_ in script:
        log += room.handle(envelope_, 2, DiceChance(1, 2)).entries
    while len(log) < events:
        pick = rng.random()
        pid = rng.choice(PLAYERS)
        if pick < 0.05:  # a phone comes or goes: the seat's rendering follows it
            delta = -1 if room.connected(pid) else 1
            room.handle(PresenceEnvelope("node", pid, delta), 3)
            fresh = Room.restore(BANK, orjson.loads(room.snapshot(with_view=False)), log, 16)
            assert fresh.view == room.view and fresh.view_json == room.view_json
            continue
        if pick < 0.45:
            dice = (rng.randint(1, 6), rng.randint(1, 6))
            sent, chance = envelope("banker", None, type="roll", dice=list(dice)), dice
        elif pick < 0.8:
            sent, chance = envelope("player", pid, type="bank"), (1, 2)
        elif pick < 0.88:
            sent, chance = envelope("banker", None, type="bank", player_id=pid), (1, 2)
        elif pick < 0.95:
            sent, chance = envelope("banker", None, type="undo"), (1, 2)
        elif pick < 0.98:
            sent, chance = envelope("banker", None, type="unbank", player_id=pid), (1, 2)
        else:
            late = f"late{len(log)}"
            sent = envelope("system", late, type="join", player_id=late, name=late)
            chance = (1, 2)
        outcome = room.handle(sent, 3, DiceChance(*chance))
        log += outcome.entries
        if outcome.entries:
            fresh = Room.restore(BANK, orjson.loads(room.snapshot(with_view=False)), log, 16)
            assert fresh.view == room.view, f"after {outcome.entries[-1]['type']}"
            assert fresh.view_json == room.view_json == orjson.dumps(room.view)
    return room, log


def test_kept_views_equal_fresh_ones_through_random_games() -> None:
    for seed in range(6):
        room, log = play(seed, 160)
        assert room.view["rounds_log"], "the games got past a round"
        assert any(entry["type"] == "undo" for entry in log)


def test_a_finished_round_is_the_same_dict_in_every_later_view() -> None:
    room, _ = play(7, 120)
    before = room.view
    log = list(before["rounds_log"])
    room.handle(envelope("banker", None, type="roll", dice=[2, 3]), 4, DiceChance(2, 3))
    after = room.view
    assert isinstance(after["rounds_log"], Kept)
    kept = after["rounds_log"][: len(log)]
    assert all(a is b for a, b in zip(kept, log, strict=True)), "rendered once"


def test_kept_renderings_live_on_their_objects_and_die_with_them() -> None:
    class View:  # a rendering that can be watched die
        def __init__(self, n: int) -> None:
            self.n = n

    made: Rendered[RoundResult, View] = Rendered(lambda r: View(r.round))
    rounds = [RoundResult(n, "seven", 0, ()) for n in range(50)]
    assert [made(r).n for r in rounds] == list(range(50))
    assert made(rounds[3]) is made(rounds[3])
    watched = [weakref.ref(made(r)) for r in rounds]
    del rounds[:40]
    assert all(ref() is None for ref in watched[:40]), "freed with their rounds, no GC needed"
    assert all(ref() is not None for ref in watched[40:])


def test_a_changed_copy_renders_afresh_and_compares_by_its_fields() -> None:
    seat = Rendered(lambda p: {"score": p.score})
    ann = Player("p1", "Ann", score=5)
    assert seat(ann) == {"score": 5}
    richer = changed(ann, score=9)
    assert seat(richer) == {"score": 9}, "a copy never inherits its original's rendering"
    assert seat(replace(ann, score=7)) == {"score": 7}
    assert ann == Player("p1", "Ann", score=5) and hash(ann) == hash(Player("p1", "Ann", 5))


def test_the_text_splices_a_kept_list_as_its_own_encoding() -> None:
    kept = Kept([{"round": 1, "bank": 12}, {"round": 2, "bank": 0}])
    view = {"code": "K7QF", "rounds_log": kept, "seq": 9}
    assert encode_view(view) == orjson.dumps(view)
    assert encode_view({**view, "seq": 10}) == orjson.dumps({**view, "seq": 10})
    assert kept.encoded is not None, "encoded once, then reused"
