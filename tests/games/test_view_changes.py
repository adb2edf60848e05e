"""A state's patch made from what its event changed equals the diff of the whole views.

A room makes each state's patch from the two states (the rules' `view_patch`,
app/games/rendered.py's `ViewParts`), not from two whole views, and renders the whole
view only when someone reads it, from the parts an event changed (`view_changes`).
Here recorded games of every game are replayed: at each event the patch, applied to
the view before, must give the whole view after, byte for byte (its JSON), as the diff
of the two whole views does; and the parts changed, laid over the view before, must be
the whole view after. BANK is also played through a `Room` (presence, undos, late
joins): each state frame's patch is applied as a phone applies it.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping
from typing import Any

import orjson

from app.bus.base import Frame
from app.games.bunco.rules import BuncoRules
from app.games.patch import diff
from app.games.seam import Event, Rules, ViewChanges
from app.rooms.envelope import CommandEnvelope, PresenceEnvelope
from app.rooms.rendering import encode_view
from app.rooms.room import Room
from tests.bank_support import BANK
from tests.games.bunco.test_bunco_properties import Night
from tests.games.tournament.test_tournament_rules import RULES as TOURNAMENT
from tests.games.tournament.test_tournament_rules import finished, rerolling


def online(player_id: str) -> bool:
    return player_id[-1] in "02468"  # some players' phones are here


def applied(view: Any, ops: list[Any]) -> Any:
    """`ops` applied to a copy of `view` as a client applies them (RFC 6902: add,
    remove, replace; static/js/shell/patch.js)."""
    doc = orjson.loads(encode_view(view))
    for op in ops:
        name, path = op[0], op[1]
        *parents, last = [t.replace("~1", "/").replace("~0", "~") for t in path.split("/")[1:]]
        if not path:
            doc = op[2]
            continue
        target = doc
        for token in parents:
            target = target[int(token)] if isinstance(target, list) else target[token]
        if isinstance(target, list):
            if name == "add":
                target.insert(len(target) if last == "-" else int(last), op[2])
            elif name == "remove":
                del target[int(last)]
            else:
                target[int(last)] = op[2]
        elif name == "remove":
            del target[last]
        else:
            assert name == "add" or last in target, op
            target[last] = op[2]
    return doc


def same(a: Any, b: Any) -> bool:
    return orjson.dumps(a) == orjson.dumps(b)


def check_replay(rules: Rules[Any], options: Mapping[str, Any], events: Iterable[Event]) -> int:
    """Replay `events`; the number of them whose view was made from its parts."""
    assert isinstance(rules, ViewChanges)
    state = rules.create(options)
    view = rules.view(state, online)
    partial = 0
    for seq, event in enumerate(events, start=2):
        after = rules.evolve(state, event, seq)
        whole = rules.view(after, online)
        parts = rules.view_changes(state, after, online)
        ops = rules.view_patch(state, after, online)
        assert (ops is None) == (parts is None), event
        if ops is not None:
            assert same(applied(view, ops), orjson.loads(encode_view(whole))), (event, ops)
            assert same(applied(view, ops), applied(view, diff(view, whole))), event
        if parts is not None:
            partial += 1
            made = {**view, **parts}
            assert orjson.dumps(made) == orjson.dumps(whole), event
            assert list(parts) == [key for key in whole if key in parts]  # the view's order
            whole = made
        state, view = after, whole
    return partial


def test_a_bunco_night_s_patches_from_its_events_equal_the_diffs() -> None:
    for seed in (1, 2):
        night = Night(seed, 12, 1)
        night.play()
        driver = night.driver
        events = [event for _, event in driver.effective]
        partial = check_replay(BuncoRules(), driver.options, events)
        assert partial > 0.9 * len(events)


def test_a_tournament_s_patches_from_its_events_equal_the_diffs() -> None:
    for tourney in (finished(), rerolling()):
        partial = check_replay(TOURNAMENT, tourney.options, tourney.events)
        assert partial == len(tourney.events)


def envelope(role: str, pid: str | None, command: dict[str, Any], **more: Any) -> CommandEnvelope:
    return CommandEnvelope(role, pid, None, orjson.dumps(command).decode(), "n", "k", **more)


def join(pid: str) -> CommandEnvelope:
    command = {"type": "join", "player_id": pid, "name": pid.upper()}
    return envelope("player", pid, command, th=pid, server=True)


def bank_game(seed: int) -> Iterable[Any]:
    """A random BANK game, as envelopes: rolls, BANKs, unBANKs, undos, late joins and
    phones that come and go."""
    picks = random.Random(seed)
    players = [f"p{n}" for n in range(4)]
    yield from (join(pid) for pid in players)
    yield envelope("banker", None, {"type": "start"})
    for n in range(400):
        kind = picks.choice(["roll"] * 6 + ["bank"] * 6 + ["unbank", "undo", "presence"])
        pid = picks.choice(players)
        if kind == "roll":
            dice = [picks.randint(1, 6), picks.randint(1, 6)]
            yield envelope("banker", None, {"type": "roll", "dice": dice})
        elif kind == "bank":
            yield envelope("player", pid, {"type": "bank"})
        elif kind == "unbank":
            yield envelope("banker", None, {"type": "unbank", "player_id": pid})
        elif kind == "undo":
            yield envelope("banker", None, {"type": "undo"})
        else:
            yield PresenceEnvelope("n", pid, picks.choice([1, -1]))
        if n == 200:
            players.append("p9")
            yield join("p9")  # seated mid-game


def expected(room: Room, seq: int) -> bytes:
    """The room's whole view now, rendered from scratch (JSON)."""
    handover = orjson.loads(room.presence_text())["handover"]
    view = {"code": room.code, **room.rules.view(room.timeline.state, room.connected)}
    return encode_view({**view, "handover": handover, "seq": seq})


def test_bank_rooms_patch_from_each_event_and_render_whole_views_only_when_read() -> None:
    made = frames = 0
    for seed in (1, 2, 3):
        room, _ = Room.create("K7QF", BANK, {"rounds": 8}, ["b" * 64], 0, 16)
        states: list[tuple[Frame, bytes]] = []  # each state frame, and its whole view then
        for message in bank_game(seed):
            for frame in room.handle(message, 1).frames:
                if frame.kind == "state":
                    states.append((frame, expected(room, frame.seq)))
            if len(states) % 7 == 0 and states:  # some views are read at once, most later
                assert encode_view(states[-1][0].view) == states[-1][1]
        for (before, old), (after, new) in zip(states, states[1:], strict=False):
            frames += 1
            assert encode_view(after.view) == new  # read late: as it was at its seq
            assert after.text == '{"type":"state","state":' + new.decode() + "}"
            if after.ops is not None:
                made += 1
                assert before.seq == after.seq - 1
                assert same(applied(orjson.loads(old), after.ops), orjson.loads(new)), after.ops
    assert made > 0.7 * frames  # after a presence change the next view is whole


def test_a_bank_room_renders_no_view_while_only_patches_are_read() -> None:
    room, _ = Room.create("K7QF", BANK, {"rounds": 8}, ["b" * 64], 0, 16)
    renderings = []
    for message in bank_game(4):
        for frame in room.handle(message, 1).frames:
            if frame.kind == "state" and frame.ops is not None:
                renderings.append(room.rendering)
    assert len(renderings) > 100
    assert sum(rendering.made for rendering in renderings) < 0.2 * len(renderings)
