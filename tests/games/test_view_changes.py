"""A state's patch made from what its event changed equals the diff of the whole views.

The rooms render only the parts of a view that an event changed (the rules'
`view_changes`, app/games/rendered.py's `ViewParts`) and the hub patches only those
(app/api/hub.py). Here recorded games of every game are replayed: at each event the
parts changed, laid over the view before, must be the whole view after, byte for byte
(its JSON), and the patch over those parts must be the diff of the two whole views.
BANK is also played through a `Room` (presence, undos, late joins): each state frame
is checked as the hub uses it.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping
from typing import Any

import orjson

from app.api.patch import diff, diff_keys
from app.games.bunco.rules import BuncoRules
from app.games.seam import Event, Rules, ViewChanges
from app.rooms.envelope import CommandEnvelope, PresenceEnvelope
from app.rooms.room import Room, encode_view
from tests.bank_support import BANK
from tests.games.bunco.test_bunco_properties import Night
from tests.games.tournament.test_tournament_rules import RULES as TOURNAMENT
from tests.games.tournament.test_tournament_rules import finished, rerolling


def online(player_id: str) -> bool:
    return player_id[-1] in "02468"  # some players' phones are here


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
        if parts is not None:
            partial += 1
            made = {**view, **parts}
            assert orjson.dumps(made) == orjson.dumps(whole), event
            assert diff_keys(view, made, tuple(parts)) == diff(view, whole), event
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


def test_bank_rooms_patch_from_what_each_event_changed_as_the_whole_diff_would() -> None:
    partial = frames = 0
    for seed in (1, 2, 3):
        room, _ = Room.create("K7QF", BANK, {"rounds": 8}, ["b" * 64], 0, 16)
        previous = None  # the last state frame's (seq, view)
        for message in bank_game(seed):
            for frame in room.handle(message, 1).frames:
                if frame.kind != "state":
                    continue
                frames += 1
                whole = {
                    "code": room.code,
                    **room.rules.view(room.timeline.state, room.connected),
                    "handover": frame.view["handover"],
                    "seq": frame.seq,
                }
                assert encode_view(frame.view) == encode_view(whole)
                assert frame.text == '{"type":"state","state":' + encode_view(whole).decode() + "}"
                if frame.changed is not None:
                    assert previous is not None and previous[0] == frame.seq - 1
                    partial += 1
                    ops = diff_keys(previous[1], frame.view, frame.changed)
                    assert ops == diff(previous[1], whole)
                previous = (frame.seq, frame.view)
    assert partial > 0.7 * frames  # after a presence change the next view is whole
